package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
)

// trustProxy is a tweak for newTestServerWith: the server sits behind a trusted proxy.
func trustProxy(d *Deps) { d.TrustProxy = true }

// sessionCookieOf signs in through a proxy that says the browser used HTTPS, and returns the
// session cookie set.
func sessionCookieOf(t *testing.T, s *testServer) *http.Cookie {
	t.Helper()
	status, _, h := s.postForm(t, "/login", "/login", url.Values{"token": {"s3cret"}}, "X-Forwarded-Proto", "https")
	if status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", status)
	}
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == sessionCookie {
			return ck
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// Behind a trusted TLS-terminating proxy the session cookie is Secure; without
// --trust-proxy the header is anybody's and is ignored (zpulse itself serves plain HTTP here).
func TestTrustProxySecureCookie(t *testing.T) {
	if ck := sessionCookieOf(t, newTestServerWith(t, "s3cret", nil, trustProxy)); !ck.Secure {
		t.Error("trust-proxy on, X-Forwarded-Proto https: the cookie is not Secure")
	}
	if ck := sessionCookieOf(t, newTestServer(t, "s3cret", nil)); ck.Secure {
		t.Error("trust-proxy off: X-Forwarded-Proto was honoured")
	}
}

// guessFrom sends a wrong bearer token as forwarded from addr and returns the status.
func guessFrom(t *testing.T, s *testServer, addr string) int {
	t.Helper()
	status, _, _ := s.do(t, http.MethodGet, "/api/v1/locks", "", "", "Authorization", "Bearer wrong", "X-Forwarded-For", addr)
	return status
}

// With --trust-proxy the attempt limit counts per forwarded client address (the proxy's
// own is loopback here); without it X-Forwarded-For is ignored, so a client cannot escape
// its limit by writing one.
func TestTrustProxyClientAddress(t *testing.T) {
	behind := newTestServerWith(t, "s3cret", nil, trustProxy)
	for range domain.SignInAttempts.Limit {
		if status := guessFrom(t, behind, "203.0.113.1"); status != http.StatusUnauthorized {
			t.Fatalf("guess: %d", status)
		}
	}
	if status := guessFrom(t, behind, "203.0.113.1"); status != http.StatusTooManyRequests {
		t.Errorf("trust on, the same forwarded address past its limit: %d, want 429", status)
	}
	if status := guessFrom(t, behind, "203.0.113.2"); status != http.StatusUnauthorized {
		t.Errorf("trust on, another forwarded address: %d, want 401 (its own limit)", status)
	}
	// A client cannot pick its address by writing X-Forwarded-For itself: the proxy appends
	// the real one, which is what counts.
	if status := guessFrom(t, behind, "203.0.113.9, 203.0.113.1"); status != http.StatusTooManyRequests {
		t.Errorf("trust on, a spoofed entry before the real address: %d, want 429", status)
	}

	direct := newTestServer(t, "s3cret", nil)
	for range domain.SignInAttempts.Limit {
		guessFrom(t, direct, "203.0.113.1")
	}
	if status := guessFrom(t, direct, "203.0.113.2"); status != http.StatusTooManyRequests {
		t.Errorf("trust off, a made-up X-Forwarded-For escaped the limit: %d, want 429", status)
	}
}

// dialWS opens a websocket to s with the given topics and headers.
func dialWS(s *testServer, header http.Header, topics ...string) (*websocket.Conn, *http.Response, error) {
	q := url.Values{"topic": topics}
	if header == nil {
		header = http.Header{"Origin": {s.URL}}
	}
	return websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL, "http")+"/ws?"+q.Encode(), header)
}

// The websocket's Origin check compares with the host the browser asked the proxy for, with
// --trust-proxy only.
func TestTrustProxyWebsocketOrigin(t *testing.T) {
	h := http.Header{"Origin": {"https://dash.example.com"}, "X-Forwarded-Host": {"dash.example.com"}}
	conn, _, err := dialWS(newTestServerWith(t, "", nil, trustProxy), h, domain.TopicStatus)
	if err != nil {
		t.Fatalf("trust on, Origin matching X-Forwarded-Host: %v", err)
	}
	conn.Close()
	if conn, resp, err := dialWS(newTestServer(t, "", nil), h, domain.TopicStatus); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		if conn != nil {
			conn.Close()
		}
		t.Errorf("trust off: X-Forwarded-Host was honoured for the Origin check (%v)", err)
	}
}
