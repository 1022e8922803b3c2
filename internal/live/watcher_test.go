package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
)

// source is a stand-in for Redis behind the PollFunc contract: topic -> snapshot, or down.
type source struct {
	mu       sync.Mutex
	data     map[string]any
	down     bool
	polls    [][]string
	periodic []bool // how.Periodic of each poll
}

func (s *source) poll(ctx context.Context, topics []string, how Poll) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls = append(s.polls, topics)
	s.periodic = append(s.periodic, how.Periodic)
	if s.down {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "connection refused")
	}
	out := map[string]any{}
	for _, t := range topics {
		if v, ok := s.data[t]; ok {
			out[t] = v
		}
	}
	return out, nil
}

func (s *source) set(topic string, v any) { s.mu.Lock(); s.data[topic] = v; s.mu.Unlock() }
func (s *source) setDown(down bool)       { s.mu.Lock(); s.down = down; s.mu.Unlock() }

// renders counts how often each topic was rendered.
type renders struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *renders) render(topic string, _ domain.Audience, snap any) ([]byte, error) {
	r.mu.Lock()
	r.n[topic]++
	r.mu.Unlock()
	if st, ok := snap.(Status); ok {
		return fmt.Appendf(nil, "status available=%v", st.Available), nil
	}
	return fmt.Appendf(nil, "%s=%v", topic, snap), nil
}

func (r *renders) count(topic string) int { r.mu.Lock(); defer r.mu.Unlock(); return r.n[topic] }

func newWatcher(t *testing.T) (*Watcher, *source, *renders, *Hub, func(topics ...string) *websocket.Conn) {
	hub, srv, _ := newHubServer(t)
	src := &source{data: map[string]any{}}
	r := &renders{n: map[string]int{}}
	w := NewWatcher(src.poll, r.render, hub, 50*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	subscribe := func(topics ...string) *websocket.Conn {
		before := hubClients(hub)
		c := dial(t, srv, topics...)
		waitSubscriptions(t, hub, func() bool { return hubClients(hub) > before })
		return c
	}
	return w, src, r, hub, subscribe
}

func TestTickPublishesOnlyWhatChanged(t *testing.T) {
	w, src, r, _, subscribe := newWatcher(t)
	ctx := context.Background()
	if n := w.Tick(ctx); n != 0 || len(src.polls) != 0 {
		t.Fatalf("with no subscriber the tick polled %d times and published %d", len(src.polls), n)
	}
	src.set("board:a", 1)
	src.set("board:b", 1)
	a := subscribe("board:a")
	if n := w.Tick(ctx); n != 1 {
		t.Fatalf("first tick published %d, want 1", n)
	}
	if got := read(t, a); got != "board:a=1" {
		t.Errorf("got %q", got)
	}
	if fmt.Sprint(src.polls[0]) != "[board:a]" {
		t.Errorf("polled %v, want only the subscribed topic", src.polls[0])
	}
	if n := w.Tick(ctx); n != 0 || r.count("board:a") != 1 {
		t.Errorf("an unchanged topic was published again (%d) or rendered again (%d)", n, r.count("board:a"))
	}
	src.set("board:a", 2)
	if n := w.Tick(ctx); n != 1 || read(t, a) != "board:a=2" {
		t.Errorf("a change was not published once")
	}
}

// One render per change, whatever the number of subscribers.
func TestOneRenderPerChangeForManySubscribers(t *testing.T) {
	w, src, r, _, subscribe := newWatcher(t)
	src.set("t", "v1")
	clients := []*websocket.Conn{subscribe("t")}
	for range 9 {
		clients = append(clients, subscribe("t", "other"+fmt.Sprint(len(clients))))
	}
	w.Tick(context.Background())
	for _, c := range clients {
		if got := read(t, c); got != "t=v1" {
			t.Errorf("got %q", got)
		}
	}
	if r.count("t") != 1 {
		t.Errorf("rendered %d times for 10 subscribers, want 1", r.count("t"))
	}
}

func TestStatusFollowsTheSource(t *testing.T) {
	w, src, _, _, subscribe := newWatcher(t)
	ctx := context.Background()
	page := subscribe(domain.TopicStatus, "board:a")
	src.set("board:a", 1)
	w.Tick(ctx)
	if got := read(t, page); got != "board:a=1" {
		t.Fatalf("got %q", got)
	}
	src.setDown(true)
	w.Tick(ctx)
	if got := read(t, page); got != "status available=false" {
		t.Errorf("outage: got %q", got)
	}
	if st := w.Status(); st.Available || st.Detail != "connection refused" {
		t.Errorf("Status() = %+v", st)
	}
	w.Tick(ctx) // still down: nothing new is sent
	src.setDown(false)
	src.set("board:a", 2)
	w.Tick(ctx)
	if got := read(t, page) + " " + read(t, page); got != "status available=true board:a=2" {
		t.Errorf("recovery: got %q, want the status first, then the change", got)
	}
	if !w.Status().Available {
		t.Error("Status() still unavailable")
	}
}

func TestNudgeTicksAtOnce(t *testing.T) {
	w, src, _, _, subscribe := newWatcher(t)
	w.interval = time.Hour // only a nudge can tick
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	c := subscribe("t")
	src.set("t", 1)
	w.Nudge()
	if got := read(t, c); got != "t=1" {
		t.Errorf("got %q", got)
	}
	cancel()
	<-done
}

func TestRenderFailureIsRetriedNextTick(t *testing.T) {
	w, src, _, _, subscribe := newWatcher(t)
	fail := true
	w.render = func(string, domain.Audience, any) ([]byte, error) {
		if fail {
			return nil, errors.New("broken template")
		}
		return []byte("ok"), nil
	}
	c := subscribe("t")
	src.set("t", 1)
	if n := w.Tick(context.Background()); n != 0 {
		t.Fatalf("published %d despite the render failing", n)
	}
	fail = false
	if n := w.Tick(context.Background()); n != 1 || read(t, c) != "ok" {
		t.Error("the topic was not published once rendering worked")
	}
}

// A topic is rendered once per audience that follows it, and each connection gets only its own
// audience's fragments: a secret rendered for an admin never reaches a connection of an
// audience that may not see it, first fragment or replay alike.
func TestTickRendersPerAudience(t *testing.T) {
	w, src, r, hub, subscribe := newWatcher(t)
	w.render = func(topic string, aud domain.Audience, snap any) ([]byte, error) {
		r.render(topic, aud, snap)
		if aud.Sees(domain.LockTokens) {
			return fmt.Appendf(nil, "%s token=%v", topic, snap), nil
		}
		return fmt.Appendf(nil, "%s token=hidden", topic), nil
	}
	admins := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		hub.Serve(rw, req, domain.Admin, nil, nil)
	}))
	t.Cleanup(admins.Close)
	src.set("locks", "marker-secret")
	anon := subscribe("locks")
	admin := dial(t, admins, "locks")
	waitSubscriptions(t, hub, func() bool { return hubClients(hub) == 2 })
	if n := w.Tick(context.Background()); n != 2 || r.count("locks") != 2 {
		t.Fatalf("published %d fragments in %d renders, want one per audience (2)", n, r.count("locks"))
	}
	if got := read(t, anon); got != "locks token=hidden" {
		t.Errorf("the anonymous connection got %q", got)
	}
	if got := read(t, admin); got != "locks token=marker-secret" {
		t.Errorf("the admin connection got %q", got)
	}
	late := subscribe("locks") // the replay is its audience's last fragment too
	if got := read(t, late); got != "locks token=hidden" {
		t.Errorf("a late anonymous connection got %q", got)
	}
	if n := w.Tick(context.Background()); n != 0 {
		t.Errorf("an unchanged topic was published again to %d audiences", n)
	}
}
