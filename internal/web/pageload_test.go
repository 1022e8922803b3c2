package web

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Loading pages and the API's reads never changes what the watcher or discovery knows: pages
// and the API read through stateless service methods, the watcher through its own reader.
// Between two ticks every page is loaded; the
// tick after publishes nothing (no topic is republished unchanged), and after a change to
// every topic the next tick publishes each of them exactly once (none is skipped). Pages used
// to call the watcher's reader, which made it forget its limiters: the tick after a page load
// skipped the limiter topics, and the one after that resent them.
func TestPageLoadsLeaveTheWatcherAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	w, srv, published := countingServer(t, rdb, clock)
	svc := w.svc

	// One of everything, the limiters with a client each; the lock never expires, so its
	// countdown does not change between ticks.
	if _, err := svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.FixedWindow, Limit: 5, WindowMs: 60_000}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Sources.SaveSource(ctx, domain.Source{Name: "theirs", Kind: domain.SourceLock, Key: "mutex:"}); err != nil {
		t.Fatal(err)
	}
	change := func(round string) {
		t.Helper()
		if _, err := svc.Leaderboards.AddPoints(ctx, "game", "player-"+round, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: "job-" + round, Priority: 3, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
		for _, limiter := range []string{"api", "default"} {
			if _, err := svc.Limiters.Allow(ctx, limiter, "client-"+round); err != nil {
				t.Fatal(err)
			}
		}
		if err := svc.Limiters.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for _, lock := range []string{"lock:order:", "mutex:order:"} {
			if err := rdb.Set(ctx, lock+round, "token", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := svc.Discovery.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	change("1")

	topics := []string{domain.TopicBoards, domain.BoardTopic("game", domain.AllTime, domain.BoardTopN),
		domain.TopicQueues, domain.QueueTopic("jobs"), domain.TopicLimiters, domain.LimiterTopic("api"),
		domain.LimiterTopic("default"), domain.TopicLocks, domain.SourceTopic("theirs")}
	for _, topic := range topics {
		subscribe(t, srv.URL, topic)
	}
	waitTopics(t, w.deps.Hub, len(topics))

	tick := func() map[string]int {
		t.Helper()
		published.take()
		w.watcher.Tick(ctx)
		return withoutStatus(published.take())
	}
	// The first ticks learn what to read (limiter policies and clients) and publish it all.
	warm := false
	for range 5 {
		if got := tick(); len(got) == 0 {
			warm = true
			break
		}
	}
	if !warm {
		t.Fatal("the watcher never settled: every tick publishes something with nothing changing")
	}

	// The pages, and the API's reads of the same things (GET /api/v1/locks once advanced the
	// sweep too).
	pages := []string{"/", "/boards", "/boards/game", "/boards/game/entries", "/queues", "/queues/jobs",
		"/limiters", "/limiters/api", "/limiters/default", "/locks", "/sources", "/sources/theirs",
		"/api/v1/boards", "/api/v1/boards/game/top", "/api/v1/queues", "/api/v1/queues/jobs",
		"/api/v1/limiters", "/api/v1/limiters/api", "/api/v1/locks", "/api/v1/sources", "/api/v1/sources/theirs"}
	loadAll := func() {
		t.Helper()
		for _, page := range pages {
			resp, err := http.Get(srv.URL + page)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s = %d", page, resp.StatusCode)
			}
		}
	}

	// Keys another service writes after discovery's last refresh stay unknown to discovery
	// (and so to the watcher) through every page load: only discovery's own loop finds them,
	// and the watcher's periodic tick its locks and an adopted source's keys (the steps, without
	// notifications). The locks page used to advance the shared sweep, which the next tick then
	// published.
	late := []string{"lock:late", "queue:late", "leaderboard:late", "mutex:late"}
	for _, key := range late {
		if err := rdb.ZAdd(ctx, key, redis.Z{Score: 1, Member: "x"}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	known := func() string {
		return fmt.Sprint(svc.Discovery.Names(store.KindBoard), svc.Discovery.Names(store.KindQueue), svc.Discovery.Names(store.KindLock), svc.Discovery.AdoptedKeys("mutex:*"))
	}
	before := known()
	loadAll()
	if after := known(); after != before {
		t.Errorf("loading every page changed what discovery knows: %s, then %s", before, after)
	}
	for _, key := range late {
		rdb.Del(ctx, key) // before the tick, whose steps would find lock:late and mutex:late
	}
	if got := tick(); len(got) != 0 {
		t.Errorf("after loading every page, an idle tick republished %v", got)
	}

	change("2")
	loadAll()
	got := tick()
	for _, topic := range topics {
		if got[topic] != 1 {
			t.Errorf("after a change to every topic and a load of every page, %q was published %d times, want 1 (all: %v)", topic, got[topic], got)
		}
	}
}

// subscribe opens a websocket on topic, the way a page does, and drains what it is sent.
func subscribe(t *testing.T, base, topic string) {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws?" + url.Values{"topic": {topic}}.Encode()
	c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {base}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}()
}

// withoutStatus copies a count per topic, without the status topic (Redis availability).
func withoutStatus(m map[string]int) map[string]int {
	out := maps.Clone(m)
	delete(out, domain.TopicStatus)
	return out
}
