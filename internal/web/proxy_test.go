package web

import (
	"fmt"
	"net"
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
	t.Parallel()
	if ck := sessionCookieOf(t, newFakeServer(t, "s3cret", nil, trustProxy)); !ck.Secure {
		t.Error("trust-proxy on, X-Forwarded-Proto https: the cookie is not Secure")
	}
	if ck := sessionCookieOf(t, newFakeServer(t, "s3cret", nil, nil)); ck.Secure {
		t.Error("trust-proxy off: X-Forwarded-Proto was honoured")
	}
	notUs := func(d *Deps) { d.TrustProxy, d.TrustedProxies = true, mustRanges(t, "10.0.0.0/8") }
	if ck := sessionCookieOf(t, newFakeServer(t, "s3cret", nil, notUs)); ck.Secure {
		t.Error("X-Forwarded-Proto from a peer outside the trusted proxies was honoured")
	}
}

// The CSRF cookie is Secure behind a trusted proxy that says the browser used HTTPS, like the
// session cookie, and only then.
func TestTrustProxySecureCSRFCookie(t *testing.T) {
	t.Parallel()
	csrfCookie := func(s *testServer) *http.Cookie {
		_, _, h := s.do(t, http.MethodGet, "/login", "", "", "X-Forwarded-Proto", "https")
		for _, ck := range (&http.Response{Header: h}).Cookies() {
			if ck.Name == "zpulse_csrf" {
				return ck
			}
		}
		t.Fatal("no CSRF cookie")
		return nil
	}
	if ck := csrfCookie(newFakeServer(t, "s3cret", nil, trustProxy)); !ck.Secure {
		t.Error("trust-proxy on, X-Forwarded-Proto https: the CSRF cookie is not Secure")
	}
	if ck := csrfCookie(newFakeServer(t, "s3cret", nil, nil)); ck.Secure {
		t.Error("trust-proxy off: X-Forwarded-Proto was honoured for the CSRF cookie")
	}
}

func mustRanges(t *testing.T, list string) []*net.IPNet {
	t.Helper()
	r, err := ParseTrustedProxies(list)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Only the listed ranges are proxies (loopback by default): a client on a private network
// behind the proxy cannot pick its address by writing private ones before it, and a peer
// outside the ranges is the client whatever it writes.
func TestTrustedProxyRanges(t *testing.T) {
	t.Parallel()
	behind := newFakeServer(t, "s3cret", nil, trustProxy)
	for i := range domain.SignInAttempts.Limit {
		// The proxy (loopback) appends the guesser's private address after what it wrote.
		if status := guessFrom(t, behind, fmt.Sprintf("10.9.9.%d, 192.168.1.7", i)); status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i+1, status)
		}
	}
	if status := guessFrom(t, behind, "10.9.9.200, 192.168.1.7"); status != http.StatusTooManyRequests {
		t.Errorf("all-private X-Forwarded-For: the guesser escaped its limit with a made-up entry: %d, want 429", status)
	}
	// The peer (127.0.0.1) is not a trusted proxy here: it is the client, whatever it writes.
	elsewhere := newFakeServer(t, "s3cret", nil, func(d *Deps) { d.TrustProxy, d.TrustedProxies = true, mustRanges(t, "10.0.0.0/8") })
	for i := range domain.SignInAttempts.Limit {
		guessFrom(t, elsewhere, fmt.Sprintf("203.0.113.%d", i))
	}
	if status := guessFrom(t, elsewhere, "203.0.113.99"); status != http.StatusTooManyRequests {
		t.Errorf("a peer outside the trusted ranges chose its address: %d, want 429", status)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want string // the ranges, or "error"
	}{
		{DefaultTrustedProxies, "127.0.0.0/8 ::1/128"},
		{"10.0.0.1, 2001:db8::/32", "10.0.0.1/32 2001:db8::/32"},
		{"", "error"}, {"10.0.0.0/33", "error"}, {"proxy.example.com", "error"},
	} {
		r, err := ParseTrustedProxies(c.in)
		got := "error"
		if err == nil {
			var parts []string
			for _, n := range r {
				parts = append(parts, n.String())
			}
			got = strings.Join(parts, " ")
		}
		if got != c.want {
			t.Errorf("ParseTrustedProxies(%q) = %s (%v), want %s", c.in, got, err, c.want)
		}
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
	t.Parallel()
	behind := newFakeServer(t, "s3cret", nil, trustProxy)
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

	direct := newFakeServer(t, "s3cret", nil, nil)
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
	t.Parallel()
	h := http.Header{"Origin": {"https://dash.example.com"}, "X-Forwarded-Host": {"dash.example.com"}}
	conn, _, err := dialWS(newFakeServer(t, "", nil, trustProxy), h, domain.TopicStatus)
	if err != nil {
		t.Fatalf("trust on, Origin matching X-Forwarded-Host: %v", err)
	}
	conn.Close()
	if conn, resp, err := dialWS(newFakeServer(t, "", nil, nil), h, domain.TopicStatus); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		if conn != nil {
			conn.Close()
		}
		t.Errorf("trust off: X-Forwarded-Host was honoured for the Origin check (%v)", err)
	}
}
