package web

import (
	"context"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// An idle queue page (and job page) receives no frame over 5 s of ticks: the
// fragments hold absolute times, which the browser shows relative, so nothing in them moves
// with the clock.
// The queues have waiting, scheduled, leased and dead jobs; the watcher's Tick is driven by
// hand with the manual clock moving 250 ms (the poll interval) before each.
func TestIdleQueuePageGetsNoFrame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	w, srv, published := countingServer(t, rdb, clock)
	q := w.svc.Queues
	for _, id := range []string{"a", "b", "c"} {
		if _, err := q.Enqueue(ctx, "jobs", domain.NewJob{ID: id, Priority: 2, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := q.Poll(ctx, "jobs", domain.PollOptions{Lease: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Enqueue(ctx, domain.DelayedQueueDefault, domain.NewJob{ID: "later", Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	// Past the sparkline's window, which moves for 3 min after the last enqueue.
	clock.Advance((domain.ThroughputSeconds + 1) * time.Second)

	topics := []string{domain.QueueTopic("jobs"), domain.QueueTopic(domain.DelayedQueueDefault), domain.TopicQueues,
		domain.JobTopic("jobs", "a"), domain.JobTopic("jobs", "b"), domain.JobTopic(domain.DelayedQueueDefault, "later")}
	for _, topic := range topics {
		subscribe(t, srv.URL, topic)
	}
	waitTopics(t, w.deps.Hub, len(topics))
	w.watcher.Tick(ctx) // the first publish of each topic
	first := published.take()
	for _, topic := range topics {
		if first[topic] != 1 {
			t.Errorf("first tick published %q %d times, want 1", topic, first[topic])
		}
	}

	for range 20 { // 5 s of 250 ms ticks
		clock.Advance(250 * time.Millisecond)
		w.watcher.Tick(ctx)
	}
	if got := withoutStatus(published.take()); len(got) != 0 {
		t.Errorf("idle queues were republished over 5 s of ticks: %v", got)
	}
}
