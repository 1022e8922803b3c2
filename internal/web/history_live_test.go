package web

import (
	"context"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A chart's topic is pushed when a bucket lands that changes what is drawn, and only then:
// not on idle ticks, not while the clock moves within a bucket, not in the second between a
// bucket's end and the recorder's write, not for a quiet bucket (domain.History.Settle).
func TestHistoryTopicPushedWhenABucketLands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	start := testNow.Add(time.Second)
	clock := domain.NewManualClock(start)
	w, srv, published := countingServer(t, rdb, clock)
	if _, err := w.svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: "a", Priority: 1, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	topic := domain.HistoryTopic(domain.HistoryQueue, "jobs", domain.HistoryHour)
	subscribe(t, srv.URL, topic)
	waitTopics(t, w.deps.Hub, 1)
	tick := func() int {
		t.Helper()
		published.take()
		w.watcher.Tick(ctx)
		return published.take()[topic]
	}
	record := func() {
		t.Helper()
		if err := w.svc.History.Record(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := tick(); n != 1 {
		t.Fatalf("first tick published the chart %d times, want 1", n)
	}
	steps := []struct {
		at     time.Duration // after 12:00:00
		record bool
		want   int
		what   string
	}{
		{1 * time.Second, false, 0, "an idle tick"},
		{11 * time.Second, true, 1, "the bucket 12:00:00 landed"},
		{11 * time.Second, false, 0, "an idle tick after it"},
		{15 * time.Second, false, 0, "the clock moved within a bucket"},
		{20*time.Second + 500*time.Millisecond, false, 0, "the bucket 12:00:10 ended, not yet recorded"},
		{21 * time.Second, true, 0, "the bucket 12:00:10 landed, quiet (the browser slides the chart)"},
	}
	for _, s := range steps {
		clock.Set(start.Add(-time.Second + s.at))
		if s.record {
			record()
		}
		if n := tick(); n != s.want {
			t.Errorf("%s: the chart was published %d times, want %d", s.what, n, s.want)
		}
	}
	clock.Set(start.Add(24 * time.Second))
	if _, err := w.svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: "b", Priority: 1, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	clock.Set(start.Add(30 * time.Second))
	record()
	if n := tick(); n != 1 {
		t.Errorf("the bucket 12:00:20, with an enqueue, landed: the chart was published %d times, want 1", n)
	}
}
