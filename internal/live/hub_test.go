package live

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
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
	changes := make(chan struct{}, 1)
	hub.subscriptionsChanged = func() {
		select {
		case changes <- struct{}{}:
		default: // a signal is pending already; the waiter re-checks its condition
		}
	}
	subscriptionChanges.Store(hub, changes)
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

// readUntil reads messages until one is want, failing on error.
func readUntil(t *testing.T, conn *websocket.Conn, want string) {
	t.Helper()
	for read(t, conn) != want {
	}
}

// subscriptionChanges holds, per hub of newHubServer, the channel its subscriptionsChanged
// hook signals.
var subscriptionChanges sync.Map // *Hub -> chan struct{}

// waitSubscriptions waits until ok holds, re-checking it each time the hub adds or removes a
// client. The 5 s are a guard against a hang, not a synchronisation.
func waitSubscriptions(t testing.TB, hub *Hub, ok func() bool) {
	t.Helper()
	ch, _ := subscriptionChanges.Load(hub)
	guard := time.After(5 * time.Second)
	for !ok() {
		select {
		case <-ch.(chan struct{}):
		case <-guard:
			t.Fatalf("subscriptions not as expected within 5s; topics %v", hub.Topics())
		}
	}
}

// waitTopics waits until the hub has registered the subscriptions of dialled connections.
func waitTopics(t *testing.T, hub *Hub, n int) {
	t.Helper()
	waitSubscriptions(t, hub, func() bool { return len(hub.Topics()) == n })
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
	readUntil(t, first, "new") // "old" may be skipped: a queued later fragment replaces it
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
	got := make(chan error)
	go func() { // the fast client reads everything it is sent and says so
		for {
			fast.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, _, err := fast.ReadMessage()
			got <- err
			if err != nil {
				return
			}
		}
	}()
	const sent = 300 // 38 MB to a client that never reads: far beyond socket buffers + sendBuffer
	for i := range sent {
		hub.Publish("t", big)
		if err := <-got; err != nil { // in step with the fast reader, so only the slow one lags
			t.Fatalf("the fast client failed at fragment %d: %v", i, err)
		}
	}
	if got := testutil.ToFloat64(m.drops); got != 1 {
		t.Errorf("dropped %v clients, want the slow one only", got)
	}
	waitSubscriptions(t, hub, func() bool { return hubSubscribers(hub, "t") == 1 })
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	for { // behind its backlog, the slow client finds "try again later"
		if _, _, err := slow.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseTryAgainLater) {
				t.Errorf("the slow client ended with %v, want close 1013", err)
			}
			break
		}
	}
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
	for name, q := range map[string]string{
		"no topic":      "",
		"bad character": "topic=" + url.QueryEscape("<script>"),
		"33 topics":     strings.Repeat("topic=a&", 33),
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/ws?" + q)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("?%s: status %d, want 400", q, resp.StatusCode)
			}
		})
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

// A page watching several topics gets one tick's fragments in one message, and a new
// subscriber gets the last fragment of each of its topics in one message too.
func TestBatchIsOneMessagePerConnection(t *testing.T) {
	hub, srv, _ := newHubServer(t)
	both := dial(t, srv, "status", "board:a")
	one := dial(t, srv, "board:a")
	waitTopics(t, hub, 2)
	batch := []Fragment{{Subscription{Topic: "status"}, []byte(`<div id="s">ok</div>`)}, {Subscription{Topic: "board:a"}, []byte(`<section id="a">1</section>`)},
		{Subscription{Topic: "nobody"}, []byte("x")}}
	if err := hub.PublishBatch(batch); err != nil {
		t.Fatal(err)
	}
	if got := read(t, both); got != `<div id="s">ok</div><section id="a">1</section>` {
		t.Errorf("the page of both topics got %q, want both fragments in one message", got)
	}
	if got := read(t, one); got != `<section id="a">1</section>` {
		t.Errorf("the page of one topic got %q", got)
	}
	late := dial(t, srv, "board:a", "status")
	if got := read(t, late); got != `<section id="a">1</section><div id="s">ok</div>` {
		t.Errorf("a new subscriber got %q, want the last fragment of each of its topics", got)
	}
}

func TestLatestPerTopic(t *testing.T) {
	f := func(topic, html string) *frame { return &frame{sub: Subscription{Topic: topic}, html: []byte(html)} }
	for name, tc := range map[string]struct {
		in   []*frame
		want string
	}{
		"one":               {[]*frame{f("a", "1")}, "1"},
		"distinct topics":   {[]*frame{f("a", "1"), f("b", "1")}, "11"},
		"a later replaces":  {[]*frame{f("a", "1"), f("b", "1"), f("a", "2")}, "12"},
		"three of one kind": {[]*frame{f("a", "1"), f("a", "2"), f("a", "3")}, "3"},
	} {
		t.Run(name, func(t *testing.T) {
			var got strings.Builder
			for _, fr := range latestPerTopic(tc.in) {
				got.Write(fr.html)
			}
			if got.String() != tc.want {
				t.Errorf("got %q, want %q", got.String(), tc.want)
			}
		})
	}
}
