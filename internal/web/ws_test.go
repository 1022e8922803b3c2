package web

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
)

// refusedWS dials and expects a refusal before the upgrade with status and a body that
// names the limit.
func refusedWS(t *testing.T, s *testServer, status int, limit string, topics ...string) {
	t.Helper()
	conn, resp, err := dialWS(s, nil, topics...)
	if err == nil {
		conn.Close()
		t.Fatalf("websocket admitted, want %d (%s)", status, limit)
	}
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("refusal: %v %v, want %d", resp, err, status)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), limit) {
		t.Errorf("refusal %q does not name the limit %s", body, limit)
	}
}

// One address may hold 300 live connections (the default): the 301st is refused with a 429
// that names the limit.
func TestWebsocketsPerAddress(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, nil)
	for i := range DefaultWSLimits.PerAddress {
		conn, _, err := dialWS(s, nil, domain.TopicStatus)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		t.Cleanup(func() { conn.Close() })
	}
	refusedWS(t, s, http.StatusTooManyRequests, "ws-per-address", domain.TopicStatus)
}

// Made-up topics cannot be flooded: beyond the distinct-topic limit a connection asking for
// new topics is refused (503), one asking for followed topics is not; one connection may ask
// for at most its own limit of topics (400).
func TestWebsocketTopicFlooding(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, func(d *Deps) { d.WS = WSLimits{Topics: 40, TopicsPerConn: 32} })
	made := func(from int) []string {
		var topics []string
		for i := range 32 {
			topics = append(topics, domain.BoardTopic(fmt.Sprintf("made-up-%d", from+i), domain.AllTime, 10))
		}
		return topics
	}
	conn, _, err := dialWS(s, nil, made(0)...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	refusedWS(t, s, http.StatusServiceUnavailable, "ws-max-topics", made(32)...)
	again, _, err := dialWS(s, nil, made(0)...)
	if err != nil {
		t.Fatalf("topics already followed were refused: %v", err)
	}
	again.Close()
	refusedWS(t, s, http.StatusBadRequest, "ws-topics-per-conn", append(made(0), "status")...)
}

// A topic the watcher cannot read is refused before the upgrade with a 400 naming it, and
// takes no place in the topic budget.
func TestWebsocketInvalidTopics(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, func(d *Deps) { d.WS = WSLimits{Topics: 1} })
	long := "queue." + strings.Repeat("a", 600)
	for _, bad := range []string{"nonsense.x.1", long, "board:made-up:all:10"} {
		refusedWS(t, s, http.StatusBadRequest, "unknown live topic", domain.TopicStatus, bad)
		refusedWS(t, s, http.StatusBadRequest, bad[:min(len(bad), 40)], bad)
	}
	conn, _, err := dialWS(s, nil, domain.TopicStatus)
	if err != nil {
		t.Fatalf("the one place in the budget was taken by refused topics: %v", err)
	}
	conn.Close()
}

// One address holds at most --ws-topics-per-address distinct topics over all its
// connections: beyond, a connection asking for new ones is refused with a 429 naming the
// flag; topics it holds already, and other addresses, are still admitted. With the default
// flags this bounds the Redis work of one address (README, Resources): the admitted topics
// are the share, however many connections try.
func TestWebsocketTopicsPerAddress(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, trustProxy)
	from := func(addr string) http.Header { return http.Header{"Origin": {s.URL}, "X-Forwarded-For": {addr}} }
	dial := func(addr string, topics []string) (*websocket.Conn, *http.Response, error) {
		q := url.Values{"topic": topics}
		return websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL, "http")+"/ws?"+q.Encode(), from(addr))
	}
	share := DefaultWSLimits.TopicsPerAddress
	next := 0
	fresh := func() []string {
		topics := make([]string, DefaultWSLimits.TopicsPerConn)
		for i := range topics {
			topics[i] = domain.JobTopic("email", fmt.Sprint("job-", next))
			next++
		}
		return topics
	}
	admitted, refused := 0, 0
	var first []string
	for range 2 * share / DefaultWSLimits.TopicsPerConn {
		topics := fresh()
		conn, resp, err := dial("203.0.113.7", topics)
		if err != nil {
			if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("refusal %v %v, want 429", resp, err)
			}
			body, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(body), "ws-topics-per-address") {
				t.Errorf("refusal %q does not name ws-topics-per-address", body)
			}
			refused++
			continue
		}
		t.Cleanup(func() { conn.Close() })
		if first == nil {
			first = topics
		}
		admitted++
	}
	if got := admitted * DefaultWSLimits.TopicsPerConn; got > share || refused == 0 {
		t.Errorf("one address holds %d distinct topics (%d refused), want at most %d", got, refused, share)
	}
	conn, _, err := dial("203.0.113.7", first)
	if err != nil {
		t.Fatalf("topics the address holds already were refused: %v", err)
	}
	conn.Close()
	conn, _, err = dial("198.51.100.9", fresh())
	if err != nil {
		t.Fatalf("another address was refused: %v", err)
	}
	conn.Close()
}

// The total number of connections is bounded whatever the address.
func TestWebsocketsTotal(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, func(d *Deps) { d.WS = WSLimits{Total: 2} })
	for range 2 {
		conn, _, err := dialWS(s, nil, domain.TopicStatus)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	refusedWS(t, s, http.StatusServiceUnavailable, "ws-max-conns", domain.TopicStatus)
}

// A connection's slot and topics are given back when it ends.
func TestWebsocketAdmissionRelease(t *testing.T) {
	t.Parallel()
	a := newWSAdmission(WSLimits{PerAddress: 1, Total: 1, Topics: 2, TopicsPerConn: 2})
	x, y, z, w := domain.QueueTopic("x"), domain.QueueTopic("y"), domain.QueueTopic("z"), domain.QueueTopic("w")
	release, refused := a.admit("a", []string{x, y, x})
	if refused != nil {
		t.Fatal(refused.msg)
	}
	if _, refused := a.admit("b", []string{z}); refused == nil {
		t.Fatal("a second connection passed a total of 1")
	}
	release()
	release() // twice is once
	if a.total != 0 || len(a.perAddr) != 0 || len(a.topics) != 0 || len(a.addrTopics) != 0 {
		t.Errorf("after release: total %d, addresses %v, topics %v, per address %v", a.total, a.perAddr, a.topics, a.addrTopics)
	}
	if _, refused := a.admit("b", []string{z, w}); refused != nil {
		t.Errorf("after release: %s", refused.msg)
	}
}

// /ws lifts the server's read and write deadlines: a gorilla connection keeps its own.
func TestHTTPServerTimeouts(t *testing.T) {
	t.Parallel()
	srv := NewHTTPServer(http.NotFoundHandler(), nil)
	if srv.ReadTimeout <= 0 || srv.WriteTimeout <= domain.MaxTakeWait || srv.IdleTimeout <= 0 || srv.ReadHeaderTimeout <= 0 {
		t.Errorf("timeouts: read %v write %v idle %v header %v", srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.ReadHeaderTimeout)
	}
}
