package live

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func newHubServer(t testing.TB) (*Hub, *httptest.Server, *Metrics) {
	t.Helper()
	m := NewMetrics(prometheus.NewRegistry())
	hub := NewHub(m)
	srv := httptest.NewServer(http.HandlerFunc(hub.ServeWS))
	t.Cleanup(func() { hub.Close(); srv.Close() })
	return hub, srv, m
}

func dial(t testing.TB, srv *httptest.Server, topics ...string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?" + url.Values{"topic": topics}.Encode()
	conn, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func read(t *testing.T, conn *websocket.Conn) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(msg)
}

// waitTopics waits until the hub has registered the subscriptions of dialled connections.
func waitTopics(t *testing.T, hub *Hub, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(hub.Topics()) != n {
		if time.Now().After(deadline) {
			t.Fatalf("hub has topics %v, want %d", hub.Topics(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPublishReachesSubscribersOfTheTopicOnly(t *testing.T) {
	hub, srv, _ := newHubServer(t)
	a := dial(t, srv, "board:a")
	b := dial(t, srv, "board:b", "status")
	waitTopics(t, hub, 3)
	hub.Publish("board:a", []byte(`<div id="a">1</div>`))
	hub.Publish("board:b", []byte(`<div id="b">1</div>`))
	hub.Publish("nobody", []byte(`x`))
	if got := read(t, a); got != `<div id="a">1</div>` {
		t.Errorf("a got %q", got)
	}
	if got := read(t, b); got != `<div id="b">1</div>` {
		t.Errorf("b got %q", got)
	}
	if len(hub.Topics()) != 3 {
		t.Errorf("publishing to a topic nobody watches created it: %v", hub.Topics())
	}
}

func TestNewSubscriberGetsTheLastFragment(t *testing.T) {
	hub, srv, _ := newHubServer(t)
	first := dial(t, srv, "board:a")
	waitTopics(t, hub, 1)
	hub.Publish("board:a", []byte("old"))
	hub.Publish("board:a", []byte("new"))
	read(t, first)
	read(t, first)
	late := dial(t, srv, "board:a")
	if got := read(t, late); got != "new" {
		t.Errorf("late subscriber got %q, want the last fragment", got)
	}
}

// A topic left without subscribers forgets its fragment: nobody polls it, so it would go stale.
func TestTopicWithoutSubscribersIsForgotten(t *testing.T) {
	hub, srv, _ := newHubServer(t)
	c := dial(t, srv, "board:a")
	waitTopics(t, hub, 1)
	hub.Publish("board:a", []byte("v1"))
	read(t, c)
	c.Close()
	waitTopics(t, hub, 0)
	again := dial(t, srv, "board:a")
	waitTopics(t, hub, 1)
	hub.Publish("board:a", []byte("v2"))
	if got := read(t, again); got != "v2" {
		t.Errorf("got %q, want v2 (the stale v1 must not be replayed)", got)
	}
}

// A client that does not read is dropped when its buffer is full; the others go on.
func TestSlowClientIsDroppedOthersKeepReceiving(t *testing.T) {
	hub, srv, m := newHubServer(t)
	slow := dial(t, srv, "t")
	fast := dial(t, srv, "t")
	waitTopics(t, hub, 1)
	big := []byte(strings.Repeat("x", 128<<10))
	done := make(chan int)
	go func() { // the fast client reads everything it is sent, up to "end"
		n := 0
		for {
			fast.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, msg, err := fast.ReadMessage()
			if err != nil || string(msg) == "end" {
				done <- n
				return
			}
			n++
		}
	}()
	const sent = 300 // 38 MB to a client that never reads: far beyond socket buffers + sendBuffer
	for range sent {
		hub.Publish("t", big)
		time.Sleep(time.Millisecond) // let the fast reader keep up
	}
	if got := testutil.ToFloat64(m.drops); got != 1 {
		t.Errorf("dropped %v clients, want the slow one only", got)
	}
	hub.Publish("t", []byte("end"))
	if n := <-done; n < sent {
		t.Errorf("the fast client got %d of %d fragments", n, sent)
	}
	_ = slow
}

func TestForeignOriginIsRefused(t *testing.T) {
	_, srv, _ := newHubServer(t)
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?topic=status"
	_, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"http://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: err %v, resp %v; want 403", err, resp)
	}
}

func TestTopicsAreValidated(t *testing.T) {
	_, srv, _ := newHubServer(t)
	for _, q := range []string{"", "topic=" + url.QueryEscape("<script>"), strings.Repeat("topic=a&", 33)} {
		resp, err := http.Get(srv.URL + "/ws?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("?%s: status %d, want 400", q, resp.StatusCode)
		}
	}
}

// On shutdown clients get "service restart" (1012), after which htmx's ws extension reconnects.
func TestCloseSendsServiceRestart(t *testing.T) {
	hub, srv, _ := newHubServer(t)
	c := dial(t, srv, "t")
	waitTopics(t, hub, 1)
	hub.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseServiceRestart) {
		t.Fatalf("got %v, want close 1012", err)
	}
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?topic=t"
	late, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	late.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := late.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseServiceRestart) {
		t.Errorf("a connection after Close got %v, want close 1012", err)
	}
}
