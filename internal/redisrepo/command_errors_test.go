package redisrepo

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/redistest"
)

// Failed commands are counted by command, alone or pipelined; a nil reply is an answer.
func TestCommandErrorsCountFailures(t *testing.T) {
	ctx := context.Background()
	svc := openTest(t, redistest.Client(t), nil)
	rdb := svc.Client
	rdb.HSet(ctx, "h", "f", "v")
	_ = rdb.Incr(ctx, "h").Err() // WRONGTYPE
	pipe := rdb.Pipeline()
	pipe.Incr(ctx, "h")
	pipe.Get(ctx, "missing") // nil: not an error
	_, _ = pipe.Exec(ctx)
	if got := svc.CommandErrors.Counts(); got["incr"] != 2 || len(got) != 1 {
		t.Errorf("counts = %v, want incr 2 and nothing else", got)
	}
}
