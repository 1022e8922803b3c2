package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/views"
)

func TestBoardPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/boards/game:2048/scores", `{"player":"carol","points":1500}`)
	status, body, h := s.do(t, http.MethodGet, "/boards/game:2048", "", "")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	for _, want := range []string{
		`data-player="carol"`, ">1,500<", `Full access<span class="max-sm:sr-only"> from this machine`, `ws-connect="/ws?topic=status&amp;topic=board.all.10%3Agame%3A2048&amp;topic=history.board.1h%3Agame%3A2048"`,
		`id="` + views.BoardPanelID("game:2048", domain.AllTime, 10) + `"`, `name="_csrf"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for header, want := range map[string]string{
		"Content-Security-Policy": "script-src 'self'", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "same-origin", "X-Request-Id": "", "Cache-Control": "no-store",
	} {
		if got := h.Get(header); got == "" || !strings.Contains(got, want) {
			t.Errorf("%s = %q, want it to contain %q", header, got, want)
		}
	}
	if status, _ := s.get(t, "/boards/bad%7Bname%7D"); status != http.StatusBadRequest {
		t.Errorf("a board name with braces: %d, want 400", status)
	}
	// Another service's board shows whatever its name holds.
	if status, _ := s.get(t, "/boards/"+url.PathEscape("排行榜:2048 eu")); status != http.StatusOK {
		t.Errorf("a board named 排行榜:2048 eu: %d, want 200", status)
	}
}

// Without JavaScript the form posts, then redirects back to the page, which shows the outcome.
func TestAddPointsFormWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, _, h := s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {" alice "}, "points": {"40"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/boards/b" {
		t.Fatalf("post: %d Location %q", status, h.Get("Location"))
	}
	_, body := s.get(t, h.Get("Location"))
	if !strings.Contains(body, "alice now has 40 points, rank 1.") {
		t.Errorf("the page does not say what was added")
	}
	_, body = s.get(t, h.Get("Location"))
	page, _, _ := strings.Cut(body, `data-testid="recent-changes"`) // the audit trail's record of it may stay
	if strings.Contains(page, "now has 40 points") {
		t.Errorf("the message shows again on the next view")
	}
	status, body, _ = s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"bob"}, "points": {"1.5"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "“Points” must be a whole number") || !strings.Contains(body, `value="bob"`) {
		t.Errorf("bad points: %d; want 400 with the inline error and the typed values kept", status)
	}
	if s.rdb.ZScore(context.Background(), "leaderboard:b", "bob").Err() == nil {
		t.Error("bad input was written")
	}
}

func TestAddPointsFormWithHTMX(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body, _ := s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"dora"}, "points": {"5"}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(body), `<section id="add-points"`) || !strings.Contains(body, "now has 5 points") {
		t.Errorf("htmx post: %d %.300s", status, body)
	}
	status, body, _ = s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {strings.Repeat("x", 65)}, "points": {"abc"}}, "HX-Request", "true")
	if status != http.StatusBadRequest || !strings.Contains(body, "at most 64 bytes") || !strings.Contains(body, "“Points” must be a whole number") || strings.Contains(body, "<html") {
		t.Errorf("htmx bad input: %d %.500s", status, body)
	}
}

func TestFormsNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	form := url.Values{"player": {"a"}, "points": {"1"}}.Encode()
	status, _, _ := s.do(t, http.MethodPost, "/boards/b/points", "application/x-www-form-urlencoded", form)
	s.get(t, "/boards/b") // now the cookie is set, but the form still lacks the token
	status2, _, _ := s.do(t, http.MethodPost, "/boards/b/points", "application/x-www-form-urlencoded", form+"&_csrf=forged")
	if status < 400 || status2 < 400 {
		t.Errorf("posts without a valid token: %d and %d, want refusals", status, status2)
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("a forged form wrote %v", k)
	}
}

// A player's name is text, on the page and in the pushed fragment.
func TestPlayerNamesAreEscaped(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	evil := `<img src=x onerror=alert(1)>`
	s.postJSON(t, "/api/v1/boards/xss/scores", `{"player":"`+evil+`","points":1}`)
	_, page := s.get(t, "/boards/xss")
	top, err := openRepo(t, s.rdb).Leaderboards.Top(context.Background(), "xss", domain.AllTime, 10)
	if err != nil {
		t.Fatal(err)
	}
	frag, err := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "")(domain.BoardTopic("xss", domain.AllTime, 10), domain.Admin, top)
	if err != nil {
		t.Fatal(err)
	}
	for name, html := range map[string]string{"page": page, "fragment": string(frag)} {
		if strings.Contains(html, "<img src=x") || !strings.Contains(html, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s does not escape the player name", name)
		}
	}
}

func TestAdminSignInForForms(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	_, page := s.get(t, "/boards/b")
	if !strings.Contains(page, "the operator role to use this") || !strings.Contains(page, `<fieldset disabled`) {
		t.Error("the page offers the form without a session, or does not say why it is disabled")
	}
	status, _, h := s.postForm(t, "/login", "/boards/b/points", url.Values{"player": {"a"}, "points": {"1"}})
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Errorf("post without session: %d %q", status, h.Get("Location"))
	}
	status, body, _ := s.postForm(t, "/login", "/login", url.Values{"token": {"wrong"}, "next": {"/boards/b"}})
	if status != http.StatusUnauthorized || !strings.Contains(body, "not the admin token") {
		t.Errorf("wrong token: %d", status)
	}
	status, _, h = s.postForm(t, "/login", "/login", url.Values{"token": {"s3cret"}, "next": {"/boards/b"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/boards/b" {
		t.Fatalf("sign in: %d %q", status, h.Get("Location"))
	}
	if status, _, _ = s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"a"}, "points": {"1"}}); status != http.StatusSeeOther {
		t.Errorf("post with session: %d", status)
	}
	if got := s.rdb.ZScore(context.Background(), "leaderboard:b", "a").Val(); got != 1 {
		t.Errorf("score after a signed-in post = %v", got)
	}
	s.postForm(t, "/boards/b", "/logout", url.Values{})
	if _, page = s.get(t, "/boards/b"); !strings.Contains(page, "the operator role to use this") {
		t.Error("still signed in after sign-out")
	}
}

func TestLocalPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/boards/b": "/boards/b", "/boards/b?x=1": "/boards/b?x=1", "http://host:1/boards/b": "/boards/b",
		"//evil.example/x": "/x", "https://evil.example/": "/", `/\evil.example`: "/", "": "/", "javascript:alert(1)": "/", "boards": "/",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// With Redis down, pages load and say so, /readyz is 503 and the API answers 503.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	rdb, _ := redisrepo.Connect("redis://127.0.0.1:1")
	defer rdb.Close()
	s := newTestServer(t, "", rdb)
	for _, p := range []string{"/", "/boards/game:2048"} {
		if status, body := s.get(t, p); status != http.StatusOK || !strings.Contains(body, "Redis unavailable") {
			t.Errorf("%s: %d, want 200 with the banner", p, status)
		}
	}
	// A queue page loaded while Redis is down says its counts are unknown, never zero.
	_, body := s.get(t, "/queues/emails")
	waiting := regexp.MustCompile(`data-testid="stat-waiting">(.*?)</p>`).FindStringSubmatch(body)
	if waiting == nil || !strings.Contains(waiting[1], "unknown") || strings.Contains(waiting[1], "0") {
		t.Errorf("the queue's waiting count with Redis down: %q, want unknown", waiting)
	}
	if strings.Contains(body, "No dead job") || strings.Contains(body, "0 failed") {
		t.Error("the queue page with Redis down says it has no dead job")
	}
	// A limiter page says it could not load the policy, not that there is none.
	if _, body := s.get(t, "/limiters/default"); strings.Contains(body, "There is no policy") || !strings.Contains(body, "Could not load") {
		t.Error("the limiter page with Redis down does not say it could not load the policy")
	}
	if status, body := s.get(t, "/readyz"); status != http.StatusServiceUnavailable || !strings.Contains(body, `"unavailable"`) {
		t.Errorf("readyz: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`); status != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"unavailable"`) {
		t.Errorf("API: %d %s", status, body)
	}
	status, body, _ := s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"a"}, "points": {"1"}}, "HX-Request", "true")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "nothing was changed") {
		t.Errorf("form: %d %.300s", status, body)
	}
	if status, _ := s.get(t, "/healthz"); status != http.StatusOK {
		t.Errorf("healthz: %d", status)
	}
}

func TestStatusFragment(t *testing.T) {
	t.Parallel()
	render := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "")
	down, _ := render(domain.TopicStatus, domain.Admin, live.Status{Available: false, Detail: "refused"})
	up, _ := render(domain.TopicStatus, domain.Admin, live.Status{Available: true})
	if !strings.Contains(string(down), `id="redis-status"`) || !strings.Contains(string(down), "Redis unavailable") {
		t.Errorf("down fragment: %s", down)
	}
	if !strings.Contains(string(up), `id="redis-status"`) || strings.Contains(string(up), "unavailable") {
		t.Errorf("up fragment: %s", up)
	}
	if _, err := render("x", domain.Admin, 42); err == nil {
		t.Error("an unknown snapshot rendered")
	}
}

func TestOperationsEndpoints(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for path, want := range map[string]string{"/healthz": `"ok"`, "/readyz": `"ready"`, "/metrics": "zpulse_ws_connections"} {
		if status, body := s.get(t, path); status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want 200 containing %s", path, status, want)
		}
	}
	if status, body := s.get(t, "/no/such/page"); status != http.StatusNotFound || !strings.Contains(body, "<html") {
		t.Errorf("unknown page: %d, want a 404 page", status)
	}
}
