package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// roundRobin is a load balancer in front of several zpulse instances: each request goes to
// the next instance in turn, whatever came before (no stickiness), with the Host rewritten to
// the instance's and X-Forwarded-For/-Host/-Proto set, as a TLS-terminating proxy does.
type roundRobin struct {
	*httptest.Server
	mu     sync.Mutex
	next   int
	served []routed
}

// routed is one request the balancer passed on, and the instance (index) it went to.
type routed struct {
	method, path string
	upgrade      bool
	to           int
}

func newRoundRobin(t *testing.T, instances ...string) *roundRobin {
	t.Helper()
	targets := make([]*url.URL, len(instances))
	for i, s := range instances {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		targets[i] = u
	}
	rr := &roundRobin{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		rr.mu.Lock()
		i := rr.next % len(targets)
		rr.next++
		rr.served = append(rr.served, routed{r.In.Method, r.In.URL.Path, r.In.Header.Get("Upgrade") != "", i})
		rr.mu.Unlock()
		r.SetURL(targets[i]) // and the Host header with it
		r.SetXForwarded()
	}}
	rr.Server = httptest.NewServer(proxy)
	t.Cleanup(rr.Close)
	return rr
}

// requests returns what the balancer passed on so far.
func (rr *roundRobin) requests() []routed {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return append([]routed(nil), rr.served...)
}

// Two instances with an admin token behind a round-robin balancer that rewrites Host, with
// --trust-proxy: a browser whose consecutive requests land on different instances signs in,
// posts forms (the session and the CSRF cookie are good on either instance), and its live
// connection, held by one instance, shows what was posted through the other.
func TestBehindARoundRobinLoadBalancer(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	a := startZpulse(t, addr, "--admin-token", "secret", "--trust-proxy")
	b := startZpulse(t, addr, "--admin-token", "secret", "--trust-proxy")
	lb := newRoundRobin(t, a.URL, b.URL)
	ctx := newBrowser(t)

	do(t, ctx, "open the sign-in page", chromedp.Navigate(lb.URL+"/login?next=/boards/game:2048"))
	resp := signIn(t, ctx, "secret")
	if loc := location(t, ctx); resp.Status != http.StatusOK || loc.Path != "/boards/game:2048" {
		t.Fatalf("signing in through the balancer led to %s (%d), want /boards/game:2048", loc, resp.Status)
	}
	if !exists(t, ctx, "#add-points form #f-add-player") {
		t.Fatalf("no add-points form after signing in: the session was not seen; the section says %q", text(t, ctx, "#add-points"))
	}
	waitLive(t, ctx)

	// Points are added until each instance has taken one of the posts: round robin gives
	// consecutive requests to different instances, but the browser's other requests (assets)
	// may fall between two posts.
	ws, total := -1, 0 // the instance holding the live connection; the points posted
	for i := 1; ; i++ {
		total += i
		submitForm(t, ctx, "balanced", fmt.Sprint(i))
		// The row shows the new total over the live connection (the form's answer swaps the
		// form only).
		waitRow(t, ctx, "balanced", fmt.Sprint(total), eventWait)
		if got := text(t, ctx, `[data-testid="add-points-ok"]`); got == "" {
			t.Fatalf("post %d: no success message; the form says %q", i, text(t, ctx, "#add-points"))
		}
		postsTo := map[int]bool{}
		for _, r := range lb.requests() {
			switch {
			case r.upgrade && strings.HasPrefix(r.path, "/ws"):
				ws = r.to
			case r.method == http.MethodPost && strings.HasSuffix(r.path, "/points"):
				postsTo[r.to] = true
			}
		}
		if len(postsTo) == 2 {
			break
		}
		if i == 8 {
			t.Fatalf("8 posts, all on one instance: %+v", lb.requests())
		}
	}
	if ws < 0 {
		t.Fatalf("no websocket through the balancer: %+v", lb.requests())
	}
	reqs := lb.requests()
	for i := 1; i < len(reqs); i++ {
		if reqs[i].to == reqs[i-1].to {
			t.Fatalf("requests %d and %d both went to instance %d: %+v", i-1, i, reqs[i].to, reqs)
		}
	}
	t.Logf("%d requests through the balancer, alternating; the live connection on instance %d showed the posts taken by both", len(reqs), ws)
	if !a.running() || !b.running() {
		t.Error("an instance exited")
	}
}
