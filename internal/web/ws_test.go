package web

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

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
	s := newTestServer(t, "", nil)
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
	s := newTestServerWith(t, "", nil, func(d *Deps) { d.WS = WSLimits{Topics: 40, TopicsPerConn: 32} })
	made := func(from int) []string {
		var topics []string
		for i := range 32 {
			topics = append(topics, fmt.Sprintf("board:made-up-%d:all:10", from+i))
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

// The total number of connections is bounded whatever the address.
func TestWebsocketsTotal(t *testing.T) {
	s := newTestServerWith(t, "", nil, func(d *Deps) { d.WS = WSLimits{Total: 2} })
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
	a := newWSAdmission(WSLimits{PerAddress: 1, Total: 1, Topics: 2, TopicsPerConn: 2})
	release, refused := a.admit("a", []string{"x", "y", "x"})
	if refused != nil {
		t.Fatal(refused.msg)
	}
	if _, refused := a.admit("b", []string{"z"}); refused == nil {
		t.Fatal("a second connection passed a total of 1")
	}
	release()
	release() // twice is once
	if a.total != 0 || len(a.perAddr) != 0 || len(a.topics) != 0 {
		t.Errorf("after release: total %d, addresses %v, topics %v", a.total, a.perAddr, a.topics)
	}
	if _, refused := a.admit("b", []string{"z", "w"}); refused != nil {
		t.Errorf("after release: %s", refused.msg)
	}
}

// /ws lifts the server's read and write deadlines: a gorilla connection keeps its own.
func TestHTTPServerTimeouts(t *testing.T) {
	srv := NewHTTPServer(http.NotFoundHandler(), nil)
	if srv.ReadTimeout <= 0 || srv.WriteTimeout <= domain.MaxTakeWait || srv.IdleTimeout <= 0 || srv.ReadHeaderTimeout <= 0 {
		t.Errorf("timeouts: read %v write %v idle %v header %v", srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.ReadHeaderTimeout)
	}
}
