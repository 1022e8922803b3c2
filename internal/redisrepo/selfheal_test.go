package redisrepo

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redistest"
)

// flushAll empties every master, as a Redis that came back without its data would be.
func flushAll(ctx context.Context, rdb redis.UniversalClient) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.FlushAll(ctx).Err() })
	}
	return rdb.FlushAll(ctx).Err()
}

// A Redis that loses its data under a running zpulse (FLUSHALL) is served correctly without
// a restart: "default" exists, the sign-in limit (domain.SignInAttempts, in code) still limits,
// every page read works,
// and a singleton loop whose lock vanished runs again, with a higher fence. On one server and
// on the Cluster.
func TestFlushAllUnderARunningZpulse(t *testing.T) {
	// Serial: FLUSHALL empties the whole server (every database), under every other test.
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		svc, err := Open(ctx, OpenOptions{Client: rdb, SingletonTimings: locks.SingletonTimings{TTL: 300 * time.Millisecond, Retry: 30 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer func() { stop(); wg.Wait(); svc.Close() }()
		fences := make(chan int64, 4)
		wg.Go(func() { svc.Run(runCtx) })
		wg.Go(func() {
			_ = svc.Singletons.Run(runCtx, "queue-reaper", func(ctx context.Context, fence int64) error {
				fences <- fence
				return svc.Queues.RunReaper(ctx, 20*time.Millisecond, fence, nil)
			})
		})
		nextFence := func() int64 {
			t.Helper()
			select {
			case f := <-fences:
				return f
			case <-time.After(10 * time.Second):
				t.Fatal("no singleton term began within 10 s")
				return 0
			}
		}
		before := nextFence()
		if _, err := svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.SlidingLog, Limit: 5, WindowMs: 1000}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Leaderboards.AddPoints(ctx, "game", "ann", 5); err != nil {
			t.Fatal(err)
		}

		if err := flushAll(ctx, rdb); err != nil {
			t.Fatal(err)
		}

		if after := nextFence(); after <= before {
			t.Errorf("the singleton's term after the flush has fence %d, not above %d", after, before)
		}
		if p, err := svc.Limiters.Policy(ctx, domain.DefaultLimiter); err != nil || p != domain.DefaultPolicy {
			t.Errorf("default after the flush = %+v, %v", p, err)
		}
		limit := domain.SignInAttempts.Limit
		for i := range limit + 1 {
			res, err := svc.Auth.Attempt(ctx, "10.0.0.1", true)
			if err != nil || res.Allowed != (i < limit) {
				t.Fatalf("sign-in attempt %d after the flush: allowed %v, %v; want the built-in limit of %d", i+1, res.Allowed, err, limit)
			}
		}
		policies, err := svc.Limiters.Policies(ctx)
		if err != nil || !slices.ContainsFunc(policies, func(p domain.LimitPolicy) bool { return p == domain.DefaultPolicy }) {
			t.Errorf("Policies after the flush = %+v, %v; want default", policies, err)
		}
		views, err := svc.Limiters.Views(ctx)
		if err != nil || len(views) != 1 {
			t.Errorf("Views after the flush = %d views, %v; want the built-in default", len(views), err)
		}
		pages := map[string]func() error{
			"boards": func() error { _, err := svc.Leaderboards.Summaries(ctx); return err },
			"board":  func() error { _, err := svc.Leaderboards.Top(ctx, "game", domain.AllTime, 10); return err },
			"queues": func() error { _, err := svc.Queues.Summaries(ctx); return err },
			"locks":  func() error { _, err := svc.Locks.List(ctx); return err },
			"limit":  func() error { _, err := svc.Limiters.View(ctx, domain.DefaultLimiter); return err },
			"write":  func() error { _, err := svc.Leaderboards.AddPoints(ctx, "game", "bob", 1); return err },
		}
		for name, read := range pages {
			if err := read(); err != nil {
				t.Errorf("%s after the flush: %v", name, err)
			}
		}
	})
}
