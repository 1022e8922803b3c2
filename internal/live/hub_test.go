package live

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// newHubServer serves a new hub's websockets; wrap, when given, wraps the server's listener.
func newHubServer(t testing.TB, wrap ...func(net.Listener) net.Listener) (*Hub, *httptest.Server, *Metrics) {
	t.Helper()
	m := NewMetrics(prometheus.NewRegistry())
	hub := NewHub(m)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hub.ServeWS))
	for _, w := range wrap {
		srv.Listener = w(srv.Listener)
	}
	srv.Start()
	t.Cleanup(func() { hub.Close(); srv.Close() })
	return hub, srv, m
}

func dial(t testing.TB, srv *httptest.Server, topics ...string) *websocket.Conn {
	t.Helper()
	return dialWith(t, websocket.DefaultDialer, srv, topics...)
}

func dialWith(t testing.TB, d *websocket.Dialer, srv *httptest.Server, topics ...string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?" + url.Values{"topic": topics}.Encode()
	conn, _, err := d.Dial(u, http.Header{"Origin": {srv.URL}})
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

// waitSubscriptions waits until ok holds (Hub.WaitSubscriptions). The 5 s are a guard against
// a hang, not a synchronisation.
func waitSubscriptions(t testing.TB, hub *Hub, ok func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hub.WaitSubscriptions(ctx, ok); err != nil {
		t.Fatal(err)
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
	// Small socket buffers on both sides, so a few fragments fill them: the hub's writer to the
	// slow client then blocks on its socket, and the hub's queue of batches for it fills.
	hub, srv, m := newHubServer(t, func(l net.Listener) net.Listener { return smallBuffers{l} })
	slow := dialSmallReadBuffer(t, srv, "t")
	fast := dial(t, srv, "t")
	waitTopics(t, hub, 1)
	big := []byte(strings.Repeat("x", 16<<10))
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
	publish := func(i int) {
		t.Helper()
		hub.Publish("t", append([]byte(strconv.Itoa(i)), big...)) // each differs: an equal one is not sent
		if err := <-got; err != nil {                             // in step with the fast reader, so only the slow one lags
			t.Fatalf("the fast client failed at fragment %d: %v", i, err)
		}
	}
	// Until the slow client is dropped (its queue, sendBuffer batches, is full), then as many
	// again, which the fast client still gets. The slow client reads right after: the hub's
	// writer, blocked on it since the buffers filled, must not have reached its write deadline
	// (writeWait), or the client would see the connection cut (1006) instead of the close frame.
	sent := 0
	for ; testutil.ToFloat64(m.drops) == 0; sent++ {
		if sent > 4*sendBuffer+100 {
			t.Fatalf("the slow client was not dropped after %d fragments of %d bytes", sent, len(big))
		}
		publish(sent)
	}
	t.Logf("the slow client was dropped after %d fragments", sent)
	for i := range sent {
		publish(sent + i)
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

// smallBuffers gives each accepted connection a small send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(4 << 10)
	}
	return c, err
}

// dialSmallReadBuffer is dial with a small receive buffer.
func dialSmallReadBuffer(t testing.TB, srv *httptest.Server, topics ...string) *websocket.Conn {
	t.Helper()
	return dialWith(t, &websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}}, srv, topics...)
}
