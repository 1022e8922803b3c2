package redisrepo

import (
	"github.com/zpulse/zpulse/internal/redisrepo/store"

	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkCommandsPerTick reports how many Redis commands the watcher sends per tick for one
// topic of each kind (a script call is one command; all ride one pipelined round trip), on
// topics with data: a board of 1,000 players, a queue with waiting, leased and dead jobs, a
// limiter with clients, held locks. The figure is the count of one warm Read, the same on
// every iteration; bench/report prints it beside the "10 or fewer" for a queue.
func BenchmarkCommandsPerTick(b *testing.B) {
	ctx := context.Background()
	rdb := redistest.Client(b)
	clock := domain.NewManualClock(testNow)
	svc := openTest(b, rdb, clock)
	for i := range 1000 {
		if _, err := svc.Leaderboards.AddPoints(ctx, "game", fmt.Sprint("p", i), int64(i)); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 50 {
		if _, err := svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: fmt.Sprint("j", i), Priority: i % 10, HasPriority: true}); err != nil {
			b.Fatal(err)
		}
	}
	for range 5 {
		if _, _, err := svc.Queues.Poll(ctx, "jobs", domain.PollOptions{Lease: time.Minute}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.FixedWindow, Limit: 5, WindowMs: 60_000}); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if _, err := svc.Limiters.Allow(ctx, "api", fmt.Sprint("c", i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := svc.Limiters.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		if _, err := svc.Locks.Acquire(ctx, fmt.Sprint("order:", i), domain.LockOptions{TTL: time.Minute}); err != nil {
			b.Fatal(err)
		}
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	for _, kind := range []struct{ name, topic string }{
		{"board", domain.BoardTopic("game", domain.AllTime, domain.BoardTopN)},
		{"boards", domain.TopicBoards},
		{"queue", domain.QueueTopic("jobs")},
		{"queues", domain.TopicQueues},
		{"limiter", domain.LimiterTopic("api")},
		{"limiters", domain.TopicLimiters},
		{"locks", domain.TopicLocks},
	} {
		b.Run(kind.name, func(b *testing.B) {
			snaps := newSnapshots(rdb, store.DefaultKeys, svc.Discovery, store.Clocks{Script: clock}, nil)
			for range 3 { // the first reads learn what to read (a limiter's policy, the locks' names)
				if _, err := snaps.Read(ctx, []string{kind.topic}); err != nil {
					b.Fatal(err)
				}
			}
			hook := &countingHook{}
			rdb.AddHook(hook)
			var per int
			for b.Loop() {
				before := hook.commands
				if _, err := snaps.Read(ctx, []string{kind.topic}); err != nil {
					b.Fatal(err)
				}
				per = hook.commands - before
			}
			b.ReportMetric(float64(per), "cmds/tick")
		})
	}
}
