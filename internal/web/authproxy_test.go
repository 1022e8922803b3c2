package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

func proxyDeps(trusted string) func(*Deps) {
	return func(d *Deps) {
		d.AuthProxy = AuthProxy{Header: "X-Forwarded-Email", GroupsHeader: "X-Forwarded-Groups",
			Admins: []string{"boss@example.com"}, Operators: []string{"live-ops"}, Default: domain.RoleViewer}
		d.TrustedProxies, _ = ParseTrustedProxies(trusted)
	}
}

// The authenticating proxy's headers name the person and their groups, which give the role;
// from a connection that is not a trusted proxy they are ignored (as Grafana's auth proxy).
func TestAuthProxyHeaderFromTrustedProxiesOnly(t *testing.T) {
	t.Parallel()
	add := func(s *testServer, header ...string) int {
		t.Helper()
		status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"p","points":1}`, header...)
		return status
	}
	f := func() *fakes {
		f := &fakes{}
		f.Leaderboards.AddPointsFn = func(_ context.Context, _, player string, points int64) (domain.Entry, error) {
			return domain.Entry{Rank: 1, Player: player, Score: points}, nil
		}
		return f
	}
	trusted := newFakeServer(t, "", f(), proxyDeps("127.0.0.1"))
	for _, c := range []struct {
		header []string
		want   int
	}{
		{nil, http.StatusUnauthorized},
		{[]string{"X-Forwarded-Email", "ann@example.com"}, http.StatusForbidden}, // a viewer
		{[]string{"X-Forwarded-Email", "ann@example.com", "X-Forwarded-Groups", "qa, live-ops"}, http.StatusOK},
		{[]string{"X-Forwarded-Email", "BOSS@example.com"}, http.StatusOK},
		{[]string{"X-Forwarded-Email", "   "}, http.StatusUnauthorized},
		{[]string{"X-Forwarded-Email", strings.Repeat("a", 300)}, http.StatusUnauthorized},
	} {
		if got := add(trusted, c.header...); got != c.want {
			t.Errorf("from a trusted proxy with %q: %d, want %d", c.header, got, c.want)
		}
	}
	if _, page, _ := trusted.do(t, http.MethodGet, "/", "", "", "X-Forwarded-Email", "ann@example.com", "X-Forwarded-Groups", "live-ops"); !strings.Contains(page, `data-testid="actor-name">ann@example.com<`) || !strings.Contains(page, ">operator<") {
		t.Error("the header does not name the proxy's person and role")
	}
	// The same headers from an address that is not a trusted proxy change nothing.
	untrusted := newFakeServer(t, "", f(), proxyDeps("10.0.0.0/8"))
	for _, h := range [][]string{{"X-Forwarded-Email", "boss@example.com"}, {"X-Forwarded-Email", "ann@example.com", "X-Forwarded-Groups", "live-ops"}} {
		if got := add(untrusted, h...); got != http.StatusUnauthorized {
			t.Errorf("from an untrusted address with %q: %d, want 401", h, got)
		}
	}
	if _, page, _ := untrusted.do(t, http.MethodGet, "/", "", "", "X-Forwarded-Email", "boss@example.com"); strings.Contains(page, "boss@example.com") {
		t.Error("an untrusted address's header names who is signed in")
	}
}

func TestPeerTrustedIgnoresForwardedAddresses(t *testing.T) {
	t.Parallel()
	proxies, _ := ParseTrustedProxies("10.1.0.0/16")
	s := &server{proxies: proxies}
	for addr, want := range map[string]bool{"10.1.2.3:5000": true, "10.2.0.1:5000": false, "[::1]:80": false, "garbage": false} {
		r := &http.Request{RemoteAddr: addr, Header: http.Header{"X-Forwarded-For": {"10.1.2.3"}}}
		if got := s.peerTrusted(r); got != want {
			t.Errorf("peerTrusted(%s) = %v", addr, got)
		}
	}
}
