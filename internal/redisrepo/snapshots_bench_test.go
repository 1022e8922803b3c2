package redisrepo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkCommandsPerTick reports how many Redis commands the watcher sends per tick for one
// topic of each kind (a script call is one command; all ride one pipelined round trip), on
// topics with data: a board of 1,000 players, a queue with waiting, leased and dead jobs, a
// limiter with clients, held locks. The figure is the count of one warm Read, the same on
// every iteration; bench/report prints it beside the "10 or fewer" for a queue.
func BenchmarkCommandsPerTick(b *testing.B) {
	ctx := context.Background()
	rdb := redistest.DB(b)
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
			snaps := newSnapshots(rdb, store.DefaultKeys, svc.Discovery, store.Clocks{Script: clock}, nil, nil, domain.DefaultCompletedPolicy)
			for range 3 { // the first reads learn what to read (a limiter's policy, the locks' names)
				if _, err := snaps.Read(ctx, []string{kind.topic}, live.Poll{}); err != nil {
					b.Fatal(err)
				}
			}
			hook := &redistest.CountingHook{}
			rdb.AddHook(hook)
			var per int
			for b.Loop() {
				before := hook.Commands
				if _, err := snaps.Read(ctx, []string{kind.topic}, live.Poll{}); err != nil {
					b.Fatal(err)
				}
				per = hook.Commands - before
			}
			b.ReportMetric(float64(per), "cmds/tick")
		})
	}
}

// maxCommandsPerMadeUpTopic is the most Redis commands one tick spends on a live topic that
// names a board, queue, job, limiter, source or chart nobody has: anyone can make such topics
// up, so README's bound on what one address makes Redis do (Resources) is
// --ws-topics-per-address × this × ticks per second.
const maxCommandsPerMadeUpTopic = 9

// Topics naming things nobody has cost a bounded number of commands per tick each, whatever
// their kind, so the commands one address can cause grow with its topics only.
func TestCommandsPerMadeUpTopic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	svc := openTest(t, rdb, clock)
	const n = 40
	for _, kind := range []struct {
		name  string
		topic func(i int) string
	}{
		{"board", func(i int) string { return domain.BoardTopic(fmt.Sprint("nobody-", i), domain.AllTime, 100) }},
		{"queue", func(i int) string { return domain.QueueTopic(fmt.Sprint("nobody-", i)) }},
		{"job", func(i int) string { return domain.JobTopic(fmt.Sprint("nobody-", i), "j") }},
		{"limiter", func(i int) string { return domain.LimiterTopic(fmt.Sprint("nobody-", i)) }},
		{"source", func(i int) string { return domain.SourceTopic(fmt.Sprint("nobody-", i)) }},
		{"history", func(i int) string {
			return domain.HistoryTopic(domain.HistoryQueue, fmt.Sprint("nobody-", i), domain.HistoryDay)
		}},
	} {
		topics := make([]string, n)
		for i := range topics {
			topics[i] = kind.topic(i)
		}
		for range 3 { // warm: the first reads learn what to read
			if _, err := svc.Snapshots.Read(ctx, topics, live.Poll{}); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(time.Second) // a new second: charts are read again
		hook := &redistest.CountingHook{}
		rdb.AddHook(hook)
		if _, err := svc.Snapshots.Read(ctx, topics, live.Poll{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d commands for %d topics", kind.name, hook.Commands, n)
		if hook.Commands > n*maxCommandsPerMadeUpTopic {
			t.Errorf("%s: %d commands for %d topics, want at most %d each", kind.name, hook.Commands, n, maxCommandsPerMadeUpTopic)
		}
	}
}

// BenchmarkSnapshotsReadLocks is the watcher's read of the locks topic with n held locks
// (one pipeline: the index, a SCAN step when due, four reads per lock).
func BenchmarkSnapshotsReadLocks(b *testing.B) {
	for _, n := range []int{10, 200} {
		b.Run(fmt.Sprintf("lk=%d", n), func(b *testing.B) {
			rdb := redistest.DB(b)
			svc := openTest(b, rdb, nil)
			lk := svc.Locks
			for i := range n {
				lk.Acquire(ctx, fmt.Sprintf("lock:%d", i), domain.LockOptions{TTL: time.Hour})
			}
			snaps := svc.Snapshots
			topics := []string{domain.TopicLocks}
			for warm := false; !warm; { // until the first SCAN pass ended
				got, _ := snaps.Read(ctx, topics, live.Poll{})
				_, warm = got[domain.TopicLocks]
			}
			for b.Loop() {
				got, err := snaps.Read(ctx, topics, live.Poll{})
				if err != nil || len(got[domain.TopicLocks].(domain.HeldLocks).Locks) != n {
					b.Fatalf("read %v, %v", got, err)
				}
			}
		})
	}
}
