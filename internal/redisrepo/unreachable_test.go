package redisrepo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
)

// An unreachable Redis is EUNAVAILABLE through the error that names the failing operation.
func TestUnreachableRedisIsUnavailable(t *testing.T) {
	t.Parallel()
	rdb, err := Connect("redis://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	svc := openTest(t, rdb, nil)
	lb := svc.Leaderboards
	ctx := context.Background()
	calls := []struct {
		op   string
		call func() error
	}{
		{"boards.Leaderboards.boardSettings", func() error { _, err := lb.AddPoints(ctx, "b", "a", 1); return err }},
		{"boards.Leaderboards.Top", func() error { _, err := lb.Top(ctx, "b", domain.AllTime, 10); return err }},
		{"redisrepo.Snapshots.read", func() error { _, err := svc.Snapshots.Read(ctx, nil, live.Poll{}); return err }},
		{"queues.Queues.Enqueue", func() error { _, err := svc.Queues.Enqueue(ctx, "q", domain.NewJob{ID: "j"}); return err }},
		{"store.Discovery.refresh", func() error { _, err := svc.Queues.Summaries(ctx); return err }},
	}
	for _, c := range calls {
		t.Run(c.op, func(t *testing.T) {
			err := c.call()
			if domain.ErrorCode(err) != domain.EUNAVAILABLE || !strings.HasPrefix(err.Error(), c.op+": ") {
				t.Errorf("got %v, want EUNAVAILABLE named %s", err, c.op)
			}
		})
	}
	ctxDone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := lb.Top(ctxDone, "b", domain.AllTime, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v", err)
	}
}
