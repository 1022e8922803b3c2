package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Idle charts: with the history recorder writing a bucket every 10 s of the
// manual clock, the pages with charts (a board, a queue, a limiter, each over 1 h and 24 h)
// get no frame in a minute of 250 ms ticks: the chart is drawn at absolute times, the
// browser slides it, and buckets that add nothing (counters 0, gauges unchanged) leave the
// panel's snapshot equal. So after the activity's buckets have left the hour, and so after a
// page has sat for longer than its range. A bucket that counts something is a frame.
func TestIdleChartsGetNoFrame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	w, srv, _ := countingServer(t, rdb, clock)
	svc := w.svc
	if _, err := svc.Leaderboards.AddPoints(ctx, "idle", "alice", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.TokenBucket, RatePerS: 10, Burst: 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Limiters.Allow(ctx, "api", "client-1"); err != nil {
		t.Fatal(err)
	}
	if err := svc.Limiters.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: id, Priority: 2, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := svc.Queues.Poll(ctx, "jobs", domain.PollOptions{Lease: 3 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	// sit moves the clock on by d in 250 ms steps, recording each bucket as the recorder does
	// (history.HistoryDelay after it ends) and, when tick, ticking the watcher after each.
	sit := func(d time.Duration, tick bool) {
		for end := clock.Now().Add(d); clock.Now().Before(end); {
			was := clock.Now().Add(-history.HistoryDelay).Truncate(domain.HistoryStep)
			clock.Advance(250 * time.Millisecond)
			if clock.Now().Add(-history.HistoryDelay).Truncate(domain.HistoryStep).After(was) {
				if err := svc.History.Record(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if tick {
				w.watcher.Tick(ctx)
			}
		}
	}
	// Past the minute that follows the activity (the sparkline's, the limiter's checks), with
	// its buckets recorded.
	sit((domain.ThroughputSeconds+11)*time.Second, false)

	var paths []string
	for _, p := range []string{"/boards/idle", "/queues/jobs", "/limiters/api"} {
		paths = append(paths, p, p+"?range=24h")
	}
	conns := map[string]*websocket.Conn{}
	for _, p := range paths {
		conns[p] = dialPage(t, srv.URL, p)
	}
	waitSubscriptions(t, w.deps.Hub, func() bool { return len(w.deps.Hub.Subscriptions()) >= 10 })
	// settle ticks the watcher until every page has its fragments, then drains them.
	settle := func() {
		for range 5 {
			w.watcher.Tick(ctx)
			clock.Advance(250 * time.Millisecond)
		}
		marker := publishMarker(t, w)
		for _, c := range conns {
			framesUntil(t, c, marker)
		}
	}
	idleMinute := func(when string) {
		t.Helper()
		sit(time.Minute, true)
		marker := publishMarker(t, w)
		for _, p := range paths {
			if frames := framesBefore(t, conns[p], marker); len(frames) != 0 {
				t.Errorf("%s: idle %s page: %d frames in a minute, want 0: %.300s", when, p, len(frames), frames[0])
			}
		}
	}
	settle()
	idleMinute("activity a minute ago")
	sit(time.Hour, false) // the activity's buckets leave the hour: a frame each, not counted
	settle()
	idleMinute("after an hour")

	// A bucket that counts something changes what is drawn: one frame, on each range.
	if _, err := svc.Leaderboards.AddPoints(ctx, "idle", "alice", 5); err != nil {
		t.Fatal(err)
	}
	sit(11*time.Second, true)
	marker := publishMarker(t, w)
	for _, p := range paths[:2] {
		charts := 0
		for _, f := range framesBefore(t, conns[p], marker) {
			if strings.Contains(f, "data-chart-range") {
				charts++
			}
		}
		if charts != 1 {
			t.Errorf("%s: %d chart frames after a bucket with point adds, want 1", p, charts)
		}
	}
}
