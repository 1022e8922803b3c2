package redisrepo

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Pages read through the services' stateless methods, never through the watcher's
// Snapshots.Read: loading every page between two watcher reads changes nothing the second
// read returns. (Pages used to call Snapshots.Read with their own topics, which made the
// watcher forget its limiters: the next read skipped the limiter topics, then resent them.)
func TestPageReadsLeaveTheWatcherAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := domain.NewManualClock(testNow)
	svc := openTest(t, redistest.DB(t), clock)
	if _, err := svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.FixedWindow, Limit: 5, WindowMs: 10_000}); err != nil {
		t.Fatal(err)
	}
	allow(t, svc.Limiters, "api", "c-1")
	allow(t, svc.Limiters, "default", "c-2")
	if err := svc.Limiters.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Leaderboards.AddPoints(ctx, "game", "alice", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Queues.Enqueue(context.Background(), "jobs", domain.NewJob{ID: "j-1", Priority: 3, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Locks.Acquire(ctx, "order:1", domain.LockOptions{TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	topics := []string{domain.TopicLimiters, domain.LimiterTopic("api"), domain.LimiterTopic("default"),
		domain.TopicBoards, domain.BoardTopic("game", domain.AllTime, domain.BoardTopN),
		domain.TopicQueues, domain.QueueTopic("jobs"), domain.TopicLocks}
	read := func() map[string]any {
		t.Helper()
		snaps, err := svc.Snapshots.Read(ctx, topics, live.Poll{})
		if err != nil {
			t.Fatal(err)
		}
		return snaps
	}
	read() // the first read learns the limiters' names, policies and clients
	before := read()
	for _, topic := range topics {
		if before[topic] == nil {
			t.Fatalf("the warm watcher read has no %q: %v", topic, before)
		}
	}

	pages := map[string]func() error{
		"boards":        func() error { _, err := svc.Leaderboards.Summaries(ctx); return err },
		"board":         func() error { _, err := svc.Leaderboards.Top(ctx, "game", domain.AllTime, 10); return err },
		"queues":        func() error { _, err := svc.Queues.Summaries(ctx); return err },
		"queue":         func() error { _, err := svc.Queues.View(ctx, "jobs"); return err },
		"limiters":      func() error { _, err := svc.Limiters.Policies(ctx); return err },
		"limiter":       func() error { _, err := svc.Limiters.View(ctx, "api"); return err },
		"default limit": func() error { _, err := svc.Limiters.View(ctx, "default"); return err },
		"locks":         func() error { _, err := svc.Locks.List(ctx); return err },
		"overview limiters": func() error {
			views, err := svc.Limiters.Views(ctx)
			if err == nil && !reflect.DeepEqual(views, before[domain.TopicLimiters]) {
				t.Errorf("Views = %+v\nthe watcher's limiters topic = %+v", views, before[domain.TopicLimiters])
			}
			return err
		},
	}
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if err := pages[name](); err != nil {
			t.Fatalf("page %s: %v", name, err)
		}
	}

	after := read()
	for _, topic := range topics {
		if after[topic] == nil {
			t.Errorf("after the page loads the watcher skipped %q", topic)
		} else if topic != domain.TopicLocks && !reflect.DeepEqual(before[topic], after[topic]) { // a lock's remaining time moves with Redis's clock
			t.Errorf("after the page loads %q changed:\n before %+v\n after  %+v", topic, before[topic], after[topic])
		}
	}
}

// The page reads return what the watcher publishes, from the same plan code.
func TestSummariesMatchTheWatcher(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := openTest(t, redistest.DB(t), domain.NewManualClock(testNow))
	svc.Leaderboards.AddPoints(ctx, "game", "alice", 10)
	svc.Leaderboards.AddPoints(ctx, "game", "bob", 20)
	if _, err := svc.Queues.Enqueue(context.Background(), "jobs", domain.NewJob{ID: "j-1", Priority: 3, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	bs, err := svc.Leaderboards.Summaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := svc.Queues.Summaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := svc.Snapshots.Read(ctx, []string{domain.TopicBoards, domain.TopicQueues}, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snaps[domain.TopicBoards], bs) || len(bs) != 1 || bs[0].Players != 2 || bs[0].Top[0].Player != "bob" {
		t.Errorf("bs: page %+v, watcher %+v", bs, snaps[domain.TopicBoards])
	}
	if !reflect.DeepEqual(snaps[domain.TopicQueues], qs) || len(qs) != 1 || qs[0].Waiting != 1 {
		t.Errorf("qs: page %+v, watcher %+v", qs, snaps[domain.TopicQueues])
	}
}
