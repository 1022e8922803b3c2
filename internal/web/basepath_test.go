package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
)

// Under --base-path every page, asset, form, redirect and websocket URL carries the prefix,
// and nothing is served outside it.
func TestBasePath(t *testing.T) {
	t.Parallel()
	s := newTestServerWith(t, "", nil, func(d *Deps) { d.BasePath = "/zpulse" })
	for path, want := range map[string]int{"/": 404, "/boards": 404, "/zpulsex": 404, "/zpulse": 200, "/zpulse/": 200,
		"/zpulse/boards": 200, "/zpulse/healthz": 200, "/zpulse/api/v1/boards": 200, "/zpulse/nope": 404} {
		if status, _ := s.get(t, path); status != want {
			t.Errorf("GET %s = %d, want %d", path, status, want)
		}
	}
	if status, _ := s.postJSON(t, "/zpulse/api/v1/boards/g/scores", `{"player":"p","points":1}`); status != http.StatusOK {
		t.Fatalf("add points: %d", status)
	}
	s.postJSON(t, "/zpulse/api/v1/queues/q/jobs", `{"id":"j"}`)
	s.postJSON(t, "/zpulse/api/v1/locks/l/acquire", `{"ttl_ms":60000}`)
	attr := regexp.MustCompile(`(?:href|src|action|hx-post|hx-get|ws-connect)="([^"]*)"`)
	for _, path := range []string{"/zpulse/", "/zpulse/boards", "/zpulse/boards/g", "/zpulse/boards/g/entries", "/zpulse/queues",
		"/zpulse/queues/q", "/zpulse/locks", "/zpulse/locks/l/force-release", "/zpulse/limiters", "/zpulse/limiters/default",
		"/zpulse/login", "/zpulse/nope"} {
		_, page := s.get(t, path)
		urls := attr.FindAllStringSubmatch(page, -1)
		if len(urls) < 10 {
			t.Errorf("only %d URLs on %s", len(urls), path)
		}
		for _, u := range urls {
			if strings.HasPrefix(u[1], "/") && !strings.HasPrefix(u[1], "/zpulse/") {
				t.Errorf("%s on %s is outside the base path", u[1], path)
			}
		}
	}
	// A form without JavaScript: redirected back under the prefix.
	status, _, h := s.postForm(t, "/zpulse/boards/g", "/zpulse/boards/g/points", url.Values{"player": {"p"}, "points": {"5"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/zpulse/boards/g" {
		t.Errorf("plain form post: %d Location %q", status, h.Get("Location"))
	}
	// With htmx, a whole-page answer redirects by HX-Redirect.
	status, _, h = s.postForm(t, "/zpulse/boards/g", "/zpulse/boards/g/reset", url.Values{"confirm": {"yes"}}, "HX-Request", "true")
	if status != http.StatusOK || h.Get("HX-Redirect") != "/zpulse/boards/g" {
		t.Errorf("htmx reset: %d HX-Redirect %q", status, h.Get("HX-Redirect"))
	}
	// Live fragments carry the prefix too.
	frag, err := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "/zpulse")(domain.TopicBoards, domain.Admin,
		[]domain.BoardSummary{{Board: "g", Players: 1, Top: []domain.Entry{{Rank: 1, Player: "p", Score: 5}}}})
	if err != nil || !strings.Contains(string(frag), `href="/zpulse/boards/g"`) {
		t.Errorf("boards fragment: %v\n%s", err, frag)
	}
}

// Sign-in under a base path: the browser comes back to the page it was on.
func TestBasePathSignIn(t *testing.T) {
	t.Parallel()
	s := newTestServerWith(t, "secret", nil, func(d *Deps) { d.BasePath = "/zpulse" })
	status, _, h := s.postForm(t, "/zpulse/login", "/zpulse/boards/g/points", url.Values{"player": {"p"}, "points": {"5"}},
		"Referer", s.URL+"/zpulse/boards/g?period=daily")
	if status != http.StatusSeeOther || h.Get("Location") != "/zpulse/login?next=%2Fboards%2Fg%3Fperiod%3Ddaily" {
		t.Fatalf("form without a session: %d Location %q", status, h.Get("Location"))
	}
	status, _, h = s.postForm(t, "/zpulse/login", "/zpulse/login", url.Values{"token": {"secret"}, "next": {"/boards/g?period=daily"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/zpulse/boards/g?period=daily" {
		t.Errorf("sign-in: %d Location %q", status, h.Get("Location"))
	}
}

func TestRefererPath(t *testing.T) {
	t.Parallel()
	e := echo.New()
	for _, c := range []struct{ base, referer, want string }{
		{"", "http://h/boards/g?x=1", "/boards/g?x=1"},
		{"/zpulse", "http://h/zpulse/boards/g", "/boards/g"},
		{"/zpulse", "http://h/zpulse", "/"},
		{"/zpulse", "http://h/zpulsex/boards", "/"},
		{"/zpulse", "http://h/other", "/"},
		{"/zpulse", "", "/"},
	} {
		req, _ := http.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Referer", c.referer)
		ctx := e.NewContext(req, nil)
		ctx.Set(basePathKey, c.base)
		if got := refererPath(ctx); got != c.want {
			t.Errorf("refererPath(%q under %q) = %q, want %q", c.referer, c.base, got, c.want)
		}
	}
}
