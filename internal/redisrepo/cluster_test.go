package redisrepo

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Every operation of every service works on a 3-master Cluster, for names whose keys lie on
// every master: no script or transaction spans two slots (a Cluster refuses it with
// CROSSSLOT), no read needs keys of several masters in one command, and the live reader's
// one pipeline reads every topic.
func TestEveryOperationOnTheCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.ClusterTurn(t)
	clock := domain.NewManualClock(testNow)
	svc := openTest(t, rdb, clock)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s on the Cluster: %v", what, err)
		}
	}
	names := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"} // Keys on every master

	lb := svc.Leaderboards
	all := []domain.Period{domain.Daily, domain.Weekly, domain.Monthly}
	for i, b := range names {
		tie := domain.TieBreakNone
		if i%2 == 1 {
			tie = domain.TieBreakFirstReached
		}
		_, err := lb.UpdateSettings(ctx, b, domain.BoardSettings{TieBreak: tie, Periods: all, RetentionDays: 2})
		must("UpdateSettings", err)
		for j, p := range names {
			_, err := lb.AddPoints(ctx, b, p, int64(j+1))
			must("AddPoints", err)
		}
		_, err = lb.SetScore(ctx, b, "alpha", 100)
		must("SetScore", err)
		_, err = lb.Player(ctx, b, domain.AllTime, "alpha")
		must("Player", err)
		_, err = lb.Around(ctx, b, domain.Weekly, "bravo", 2)
		must("Around", err)
		page, err := lb.Entries(ctx, b, domain.Daily, "", 2)
		must("Entries", err)
		_, err = lb.Entries(ctx, b, domain.Daily, *page.NextCursor, 2)
		must("Entries after a cursor", err)
		for _, p := range append(all, domain.AllTime) {
			_, err := lb.Top(ctx, b, p, 3)
			must("Top "+string(p), err)
		}
		_, err = lb.Trim(ctx, b, 4)
		must("Trim", err)
		must("RemovePlayer", lb.RemovePlayer(ctx, b, "alpha"))
		days := 3
		_, err = lb.PatchSettings(ctx, b, domain.BoardSettingsPatch{RetentionDays: &days})
		must("PatchSettings", err)
	}
	_, err := lb.Boards(ctx)
	must("Boards", err)
	_, err = lb.Summaries(ctx)
	must("Summaries", err)

	q := svc.Queues
	for _, name := range names {
		_, err := q.UpdateSettings(ctx, name, domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 1})
		must("Queues.UpdateSettings", err)
		for j, id := range []string{"a", "b", "c", "d"} {
			_, err := q.Enqueue(ctx, name, domain.NewJob{ID: id, Priority: j, HasPriority: true, Payload: json.RawMessage(`{}`)})
			must("Enqueue", err)
		}
		_, _, err = q.Poll(ctx, name, domain.PollOptions{})
		must("Poll", err)
		_, _, err = q.Poll(ctx, name, domain.PollOptions{Wait: time.Second}) // a job waits: no blocking
		must("Poll with a wait", err)
		d, _, err := q.Poll(ctx, name, domain.PollOptions{Lease: time.Second})
		must("Poll with a lease", err)
		must("Ack", q.Ack(ctx, name, d.ID, d.Token))
		_, _, err = q.Poll(ctx, name, domain.PollOptions{Lease: time.Second})
		must("Poll with a lease", err)
		_, err = q.Stats(ctx, name)
		must("Stats", err)
		_, err = q.View(ctx, name)
		must("View", err)
	}
	clock.Advance(2 * time.Second) // every lease ended: one attempt each, so the jobs die
	_, died, err := q.Reap(ctx, 1)
	must("Reap", err)
	if died != int64(len(names)) {
		t.Fatalf("Reap: %d died, want %d", died, len(names))
	}
	for _, name := range names {
		must("Requeue", q.Requeue(ctx, name, "d"))
		_, err := q.Delete(ctx, name, "d")
		must("Delete", err)
	}
	_, err = q.Queues(ctx)
	must("Queues", err)
	_, err = q.Summaries(ctx)
	must("Queues.Summaries", err)

	l := svc.Limiters
	for i, p := range []domain.LimitPolicy{ // the four algorithms at 100 requests a second
		{Algorithm: domain.SlidingLog, Limit: 100, WindowMs: 1000},
		{Algorithm: domain.FixedWindow, Limit: 100, WindowMs: 1000},
		{Algorithm: domain.SlidingCounter, Limit: 100, WindowMs: 1000},
		{Algorithm: domain.TokenBucket, RatePerS: 100, Burst: 100},
	} {
		p.Name = names[i]
		_, err := l.SetPolicy(ctx, p)
		must("SetPolicy", err)
		for _, c := range names {
			_, err := l.Allow(ctx, p.Name, c)
			must("Allow", err)
			_, err = l.Peek(ctx, p.Name, c)
			must("Peek", err)
		}
	}
	must("Flush", l.Flush(ctx))
	_, err = l.Policies(ctx)
	must("Policies", err)
	_, err = l.View(ctx, names[0])
	must("Limiters.View", err)
	_, err = l.Views(ctx)
	must("Views", err)

	lk := svc.Locks
	for _, name := range names {
		opt := domain.LockOptions{TTL: time.Minute, Owner: "worker-" + name, Wait: time.Second}
		lease, err := lk.Acquire(ctx, name, opt)
		must("Acquire", err)
		_, err = lk.Acquire(ctx, name, opt) // reentrant
		must("Acquire again", err)
		_, err = lk.Extend(ctx, name, lease.Token, 2*time.Minute)
		must("Extend", err)
		_, err = lk.Inspect(ctx, name)
		must("Inspect", err)
		_, err = lk.Release(ctx, name, lease.Token)
		must("Release", err)
		must("ForceRelease", lk.ForceRelease(ctx, name, lease.Token))
		h, err := lk.Hold(ctx, name+":held", domain.LockOptions{TTL: time.Minute})
		must("Hold", err)
		defer h.Release(ctx)
	}
	_, err = lk.List(ctx)
	must("List", err)
	_, _ = lk.Watchdog().RenewDue(ctx)
	clock.Advance(30 * time.Second)
	if renewed, _ := lk.Watchdog().RenewDue(ctx); renewed != len(names) {
		t.Fatalf("the watchdog renewed %d of %d held lk in one pipeline", renewed, len(names))
	}

	must("Discovery.Refresh", svc.Discovery.Refresh(ctx))
	topics := []string{domain.TopicStatus, domain.TopicBoards, domain.TopicQueues, domain.TopicLocks, domain.TopicLimiters}
	for _, n := range names {
		topics = append(topics, domain.BoardTopic(n, domain.Weekly, domain.BoardTopN), domain.QueueTopic(n), domain.LimiterTopic(n))
	}
	for range 2 { // the first read learns the lk' names and the limiters' policies
		_, err = svc.Snapshots.Read(ctx, topics, live.Poll{})
		must("Snapshots.Read", err)
	}
	must("Demo.SetPaused", svc.Demo.SetPaused(ctx, true))
	if paused, err := svc.Demo.Paused(ctx); err != nil || !paused {
		t.Fatalf("Demo.Paused = %v, %v", paused, err)
	}
	for _, n := range names {
		_, err := lb.Reset(ctx, n)
		must(fmt.Sprintf("Reset(%s)", n), err)
	}
}
