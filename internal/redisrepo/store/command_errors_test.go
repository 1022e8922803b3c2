package store

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/redistest"
)

// Failed commands are counted by command, alone or pipelined; a nil reply is an answer.
func TestCommandErrorsCountFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	counts := &CommandErrors{}
	rdb.AddHook(counts) // as redisrepo.Open hooks it onto its client
	rdb.HSet(ctx, "h", "f", "v")
	_ = rdb.Incr(ctx, "h").Err() // WRONGTYPE
	pipe := rdb.Pipeline()
	pipe.Incr(ctx, "h")
	pipe.Get(ctx, "missing") // nil: not an error
	_, _ = pipe.Exec(ctx)
	if got := counts.Counts(); got["incr"] != 2 || len(got) != 1 {
		t.Errorf("counts = %v, want incr 2 and nothing else", got)
	}
}
