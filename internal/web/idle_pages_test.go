package web

import (
	"context"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Idle frames per minute per page: each page's own websocket (the ws-connect URL
// in its HTML) watches a minute of 250 ms ticks on the manual clock while nothing happens,
// with a lock held (its countdown runs in the browser), a queue with waiting and leased jobs
// whose sparkline has counts (the browser slides it), a limiter that was checked, and a job
// page. Every page gets no frame: what moves with time is said by the browser from absolute
// times.
func TestIdlePagesGetNoFramePerMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	w, srv, _ := countingServer(t, rdb, clock)
	svc := w.svc
	if _, err := svc.Leaderboards.AddPoints(ctx, "idle", "alice", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Locks.Acquire(ctx, "held", domain.LockOptions{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.TokenBucket, RatePerS: 10, Burst: 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Limiters.Allow(ctx, "api", "client-1"); err != nil {
		t.Fatal(err)
	}
	// Past the windows that follow a limiter's activity (its minute of checks, a token
	// bucket's refill), which the server still draws.
	clock.Advance((domain.ThroughputSeconds + 1) * time.Second)
	// The queue's jobs come now: its sparkline holds their counts for the whole minute, which
	// the browser slides.
	for _, id := range []string{"a", "b", "c"} {
		if _, err := svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: id, Priority: 2, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := svc.Queues.Poll(ctx, "jobs", domain.PollOptions{Lease: time.Hour}); err != nil {
		t.Fatal(err)
	}

	pages := map[string]string{"overview": "/", "board": "/boards/idle", "queue": "/queues/jobs", "limiter": "/limiters/api",
		"locks": "/locks", "job": "/queues/jobs/jobs/a"}
	conns := map[string]*websocket.Conn{}
	for name, path := range pages {
		conns[name] = dialPage(t, srv.URL, path)
	}
	waitSubscriptions(t, w.deps.Hub, func() bool { return len(w.deps.Hub.Subscriptions()) >= 8 })
	// A second of ticks for each topic's whole fragment: the locks topic lists zpulse's own
	// locks from the index it read on the tick before, and the limiters overview is read once
	// a second of the clock.
	for range 5 {
		w.watcher.Tick(ctx)
		clock.Advance(250 * time.Millisecond)
	}
	marker := publishMarker(t, w)
	for _, c := range conns {
		framesUntil(t, c, marker)
	}
	for range 240 { // a minute of 250 ms ticks
		clock.Advance(250 * time.Millisecond)
		w.watcher.Tick(ctx)
	}
	marker = publishMarker(t, w)
	for name, c := range conns {
		if n := framesUntil(t, c, marker); n != 0 {
			t.Errorf("idle %s page (%s): %d frames in a minute, want 0", name, pages[name], n)
		}
	}
}

var wsConnectAttr = regexp.MustCompile(`ws-connect="([^"]+)"`)

// dialPage opens path's websocket the way the page does: the URL of its ws-connect.
func dialPage(t *testing.T, base, path string) *websocket.Conn {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := wsConnectAttr.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET %s: %d, no ws-connect", path, resp.StatusCode)
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+html.UnescapeString(string(m[1])), http.Header{"Origin": {base}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// publishMarker publishes a marker on the status topic, which every page follows, to each
// audience that follows it.
func publishMarker(t *testing.T, w testWiring) string {
	t.Helper()
	marker := `<div id="redis-status" data-marker="` + time.Now().Format(time.RFC3339Nano) + `"></div>`
	var batch []live.Fragment
	for _, sub := range w.deps.Hub.Subscriptions() {
		if sub.Topic == domain.TopicStatus {
			batch = append(batch, live.Fragment{Subscription: sub, HTML: []byte(marker)})
		}
	}
	if _, err := w.deps.Hub.PublishBatch(batch); err != nil {
		t.Fatal(err)
	}
	return marker
}

// framesUntil counts the frames c gets before marker: a connection's frames arrive in order,
// so those are all it was sent until the marker was published.
func framesUntil(t *testing.T, c *websocket.Conn, marker string) int {
	t.Helper()
	frames := framesBefore(t, c, marker)
	for _, f := range frames {
		t.Logf("frame: %.300s", f)
	}
	return len(frames)
}

// framesBefore returns the frames c gets before marker.
func framesBefore(t *testing.T, c *websocket.Conn, marker string) []string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var frames []string
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("after %d frames: %v", len(frames), err)
		}
		if string(msg) == marker {
			return frames
		}
		frames = append(frames, string(msg))
	}
}
