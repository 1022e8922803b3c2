package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

type leaseResponse struct {
	Lock     string `json:"lock"`
	Token    string `json:"token"`
	Fence    int64  `json:"fencing_token"`
	TTLms    int64  `json:"ttl_ms"`
	Holds    int64  `json:"holds"`
	Watchdog bool   `json:"watchdog"`
}

// The article's lock through the API: acquire gives a token, a second acquire is a 409, a
// release with a wrong token is a 409 and leaves the lock, the right token releases it.
func TestAPILockArticleScenario(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, b := s.postJSON(t, "/api/v1/locks/order:1001/acquire", `{"ttl_ms":30000,"wait_ms":0}`)
	var lease leaseResponse
	if err := json.Unmarshal([]byte(b), &lease); status != http.StatusOK || err != nil || lease.Token == "" || lease.Fence <= 0 || lease.Lock != "order:1001" || lease.TTLms != 30000 {
		t.Fatalf("acquire: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/order:1001/acquire", `{"ttl_ms":30000}`); status != http.StatusConflict || !strings.Contains(b, `"code":"conflict"`) {
		t.Errorf("second acquire: %d %s, want 409 conflict", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/order:1001/release", `{"token":"wrong"}`); status != http.StatusConflict || !strings.Contains(b, "nothing was changed") {
		t.Errorf("release with a wrong token: %d %s, want 409", status, b)
	}
	if got := s.rdb.Get(context.Background(), "lock:order:1001").Val(); got != lease.Token {
		t.Fatalf("after the wrong release lock:order:1001 = %q, want the token", got)
	}
	status, b = s.get(t, "/api/v1/locks/order:1001")
	if status != http.StatusOK || !strings.Contains(b, `"token":"`+lease.Token+`"`) {
		t.Errorf("inspect: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/order:1001/release", `{"token":"`+lease.Token+`"}`); status != http.StatusNoContent {
		t.Errorf("release: %d %s, want 204", status, b)
	}
	if s.rdb.Exists(context.Background(), "lock:order:1001").Val() != 0 {
		t.Error("the lock is still there after the release")
	}
	if status, _ := s.get(t, "/api/v1/locks/order:1001"); status != http.StatusNotFound {
		t.Errorf("inspect a free lock: %d, want 404", status)
	}
}

func TestAPILockExtendReentrancyAndForceRelease(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/locks/job/acquire", `{"ttl_ms":1000,"owner":"worker-7"}`)
	status, b := s.postJSON(t, "/api/v1/locks/job/acquire", `{"ttl_ms":1000,"owner":"worker-7"}`)
	if status != http.StatusOK || !strings.Contains(b, `"holds":2`) {
		t.Fatalf("reentrant acquire: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/job/extend", `{"token":"worker-8","ttl_ms":60000}`); status != http.StatusConflict {
		t.Errorf("extend with a wrong token: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/job/extend", `{"token":"worker-7","ttl_ms":60000}`); status != http.StatusOK || !strings.Contains(b, `"ttl_ms":60000`) {
		t.Errorf("extend: %d %s", status, b)
	}
	if pttl := s.rdb.PTTL(context.Background(), "lock:job").Val(); pttl < 59*time.Second {
		t.Errorf("PTTL after extend = %v", pttl)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/job/release", `{"token":"worker-7"}`); status != http.StatusOK || b != `{"holds":1,"lock":"job"}`+"\n" {
		t.Errorf("first release of two holds: %d %s, want 200 with 1 hold left", status, b)
	}
	status, b = s.get(t, "/api/v1/locks")
	if status != http.StatusOK || !strings.Contains(b, `"lock":"job"`) || !strings.Contains(b, `"reentrant":true`) {
		t.Errorf("list: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/job/force-release", `{"token":"someone"}`); status != http.StatusConflict {
		t.Errorf("force-release expecting another holder: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/locks/job/force-release", ``); status != http.StatusNoContent {
		t.Errorf("force-release: %d %s", status, b)
	}
	if status, _ := s.postJSON(t, "/api/v1/locks/job/force-release", ``); status != http.StatusNotFound {
		t.Errorf("force-release of a free lock: %d, want 404", status)
	}
}

func TestAPILockRejectsBadInput(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	cases := []struct{ name, path, body, want string }{
		{"ttl too short", "/api/v1/locks/x/acquire", `{"ttl_ms":99}`, "ttl_ms must be a whole number of milliseconds from 100 to 86,400,000"},
		{"ttl too long", "/api/v1/locks/x/acquire", `{"ttl_ms":86400001}`, "from 100 to 86,400,000"},
		{"ttl fraction", "/api/v1/locks/x/acquire", `{"ttl_ms":1000.5}`, "written as digits"},
		{"ttl string", "/api/v1/locks/x/acquire", `{"ttl_ms":"1000"}`, "written as digits"},
		{"ttl null", "/api/v1/locks/x/acquire", `{"ttl_ms":null}`, "written as digits"},
		{"negative wait", "/api/v1/locks/x/acquire", `{"wait_ms":-1}`, "wait_ms must be a whole number of milliseconds from 0 to 30,000"},
		{"long wait", "/api/v1/locks/x/acquire", `{"wait_ms":30001}`, "from 0 to 30,000"},
		{"owner with a space", "/api/v1/locks/x/acquire", `{"owner":"a b"}`, "without spaces"},
		{"watchdog string", "/api/v1/locks/x/acquire", `{"watchdog":"true"}`, `watchdog must be true or false (got "true")`},
		{"watchdog number", "/api/v1/locks/x/acquire", `{"watchdog":1}`, "watchdog must be true or false (got 1)"},
		{"unknown field", "/api/v1/locks/x/acquire", `{"ttl":1000}`, `unknown field "ttl"`},
		{"bad name", "/api/v1/locks/a%20b/acquire", `{}`, "1 to 64 characters"},
		{"no token", "/api/v1/locks/x/release", `{}`, "token is required"},
		{"empty token", "/api/v1/locks/x/release", `{"token":""}`, "token is required"},
		{"ttl on release", "/api/v1/locks/x/release", `{"token":"t","ttl_ms":5}`, `"ttl_ms" is not allowed`},
		{"extend ttl", "/api/v1/locks/x/extend", `{"token":"t","ttl_ms":50}`, "from 100 to"},
		{"not JSON", "/api/v1/locks/x/acquire", `ttl=5`, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, b := s.postJSON(t, c.path, c.body)
			var e httpio.APIError
			if err := json.Unmarshal([]byte(b), &e); err != nil || status != http.StatusBadRequest || e.Error.Code != "invalid" || !strings.Contains(e.Error.Message, c.want) {
				t.Errorf("%s: %d %s; want 400 invalid mentioning %q", c.name, status, b, c.want)
			}
		})
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("bad input wrote %v", k)
	}
	// An empty body takes the defaults: 30 s, no wait.
	if status, b := s.postJSON(t, "/api/v1/locks/x/acquire", `{}`); status != http.StatusOK || !strings.Contains(b, `"ttl_ms":30000`) {
		t.Errorf("defaults: %d %s", status, b)
	}
}

func TestAPILockNeedsTheAdminToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "secret", nil)
	for _, path := range []string{"/api/v1/locks/x/acquire", "/api/v1/locks/x/release", "/api/v1/locks/x/extend", "/api/v1/locks/x/force-release"} {
		if status, _ := s.postJSON(t, path, `{"token":"t"}`); status != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, status)
		}
	}
	if status, _ := s.postJSON(t, "/api/v1/locks/x/acquire", `{}`, "Authorization", "Bearer secret"); status != http.StatusOK {
		t.Errorf("acquire with the token: %d", status)
	}
	if status, _ := s.get(t, "/api/v1/locks"); status != http.StatusOK {
		t.Errorf("list is a read: %d, want 200 without the token", status)
	}
}

var acquiredToken = regexp.MustCompile(`data-testid="acquired-token">([^<]+)<`)

// The page's forms, without JavaScript: acquire shows the token (no redirect: it must not
// travel in a URL) and prefills the release form; a conflict is a 409 with the message in
// the form; release frees it; bad input is a 400 with inline errors.
func TestLockFormsWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body, _ := s.postForm(t, "/locks", "/locks/acquire", url.Values{"lock": {"demo"}, "ttl": {"2.5"}, "wait": {"0"}, "watchdog": {"on"}})
	m := acquiredToken.FindStringSubmatch(body)
	if status != http.StatusOK || m == nil || !strings.Contains(body, "is yours for 2.5 s, renewed by the watchdog") {
		t.Fatalf("acquire: %d, token %v", status, m)
	}
	if !strings.Contains(body, `name="token" type="text" value="`+m[1]+`"`) {
		t.Error("the release form is not prefilled with the token")
	}
	if got := s.rdb.PTTL(context.Background(), "lock:demo").Val(); got <= 0 || got > 2500*time.Millisecond {
		t.Errorf("PTTL = %v, want 2.5 s", got)
	}
	status, body, _ = s.postForm(t, "/locks", "/locks/acquire", url.Values{"lock": {"demo"}, "ttl": {"30"}, "wait": {"0"}})
	if status != http.StatusConflict || !strings.Contains(body, "is held by another owner") {
		t.Errorf("second acquire: %d, want 409 with the message", status)
	}
	status, body, _ = s.postForm(t, "/locks", "/locks/acquire", url.Values{"lock": {"a b"}, "ttl": {"0.05"}, "wait": {"31"}, "owner": {"x y"}})
	for _, want := range []string{"f-lock-error", "must be a number of seconds from 0.1 to 86400", "must be a number of seconds from 0 to 30", "f-owner-error"} {
		if status != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("bad acquire: %d, want 400 with %q", status, want)
		}
	}
	status, body, _ = s.postForm(t, "/locks", "/locks/release", url.Values{"release_lock": {"demo"}, "token": {"wrong"}})
	if status != http.StatusConflict || !strings.Contains(body, "does not hold lock") {
		t.Errorf("release with a wrong token: %d", status)
	}
	status, body, _ = s.postForm(t, "/locks", "/locks/release", url.Values{"release_lock": {"demo"}, "token": {m[1]}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.Contains(body, "Released demo.") || strings.Contains(body, "<html") {
		t.Errorf("release with htmx: %d, want the forms' section saying it was released", status)
	}
	if s.rdb.Exists(context.Background(), "lock:demo").Val() != 0 {
		t.Error("the lock is still held")
	}
}

// Force-release asks for confirmation first, and releases only the holder that was shown.
func TestForceReleaseConfirmation(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	rdb := s.rdb
	rdb.Set(context.Background(), "lock:stuck", "old-holder", time.Minute)
	status, body := s.get(t, "/locks/stuck/force-release")
	if status != http.StatusOK || !strings.Contains(body, "The holder is not told") || !strings.Contains(body, `name="token" value="old-holder"`) {
		t.Fatalf("confirmation page: %d", status)
	}
	if s.rdb.Exists(context.Background(), "lock:stuck").Val() != 1 {
		t.Fatal("showing the confirmation released the lock")
	}
	// Meanwhile the lock changed hands: the confirmation does not release the new holder.
	rdb.Set(context.Background(), "lock:stuck", "new-holder", time.Minute)
	status, body, _ = s.postForm(t, "/locks/stuck/force-release", "/locks/stuck/force-release", url.Values{"token": {"old-holder"}})
	if status != http.StatusConflict || !strings.Contains(body, "changed hands") || rdb.Get(context.Background(), "lock:stuck").Val() != "new-holder" {
		t.Errorf("stale confirmation: %d; want 409 and the new holder kept", status)
	}
	status, _, h := s.postForm(t, "/locks/stuck/force-release", "/locks/stuck/force-release", url.Values{"token": {"new-holder"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/locks?force_released=stuck" {
		t.Fatalf("confirmed force-release: %d %q", status, h.Get("Location"))
	}
	if rdb.Exists(context.Background(), "lock:stuck").Val() != 0 {
		t.Error("the lock is still there")
	}
	if _, body := s.get(t, "/locks?force_released=stuck"); !strings.Contains(body, "Lock stuck was force-released.") {
		t.Error("the page does not say what was released")
	}
	if status, body := s.get(t, "/locks/stuck/force-release"); status != http.StatusNotFound || !strings.Contains(body, "is not held") {
		t.Errorf("confirmation of a free lock: %d", status)
	}
}

func TestLocksPageNeedsSignInToChange(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "secret", nil)
	s.rdb.Set(context.Background(), "lock:other", "tok", time.Minute)
	if err := s.svc.Discovery.Refresh(context.Background()); err != nil { // as its cadence would
		t.Fatal(err)
	}
	status, body := s.get(t, "/locks")
	if status != http.StatusOK || !strings.Contains(body, "has the operator role to use this") || !strings.Contains(body, `action="/locks/acquire"`) || !strings.Contains(body, `<fieldset disabled aria-disabled="true"`) ||
		!strings.Contains(body, `data-lock="other"`) || !strings.Contains(body, "Other service") || !strings.Contains(body, `ws-connect="/ws?topic=status&amp;topic=locks"`) {
		t.Errorf("read-only page: %d", status)
	}
	if _, body := s.get(t, "/locks/other/force-release"); !strings.Contains(body, "has the admin role to use this") {
		t.Error("the confirmation offers a force-release without sign-in")
	}
	status, _, h := s.postForm(t, "/login", "/locks/acquire", url.Values{"lock": {"x"}, "ttl": {"1"}})
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") || s.rdb.Exists(context.Background(), "lock:x").Val() != 0 {
		t.Errorf("acquire without sign-in: %d %q", status, h.Get("Location"))
	}
}

// The live fragment of the locks topic replaces the page's panel by id and shows the
// countdown.
func TestRenderLocksTopic(t *testing.T) {
	t.Parallel()
	frag, err := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "")(domain.TopicLocks, domain.Admin, domain.HeldLocks{Locks: []domain.LockInfo{
		{Lock: "order:1001", Token: "tok", Type: "string", Fence: 7, RemainingMs: 12300, LeaseMs: 30000, Holds: 2, Watchdog: true, Reentrant: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="` + views.LocksPanelID + `"`, `data-lock="order:1001"`, "of 30 s", "fence 7", "Watchdog", "Reentrant", ">2<"} {
		if !strings.Contains(string(frag), want) {
			t.Errorf("fragment lacks %s", want)
		}
	}
}

// zpulse's own locks (a background loop's singleton) are marked, and a force-release needs a
// second, explicit confirmation.
func TestForceReleaseOfAnInternalLockAsksTwice(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	rdb := s.rdb
	rdb.Set(context.Background(), "lock:zpulse:some-loop", "instance-1", time.Minute)
	status, body := s.get(t, "/locks/zpulse:some-loop/force-release")
	if status != http.StatusOK || !strings.Contains(body, `data-testid="internal-warning"`) || !strings.Contains(body, `name="internal"`) {
		t.Fatalf("confirmation page of an internal lock: %d, want the warning and the extra box", status)
	}
	status, body, _ = s.postForm(t, "/locks/zpulse:some-loop/force-release", "/locks/zpulse:some-loop/force-release", url.Values{"token": {"instance-1"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "tick the box") || rdb.Exists(context.Background(), "lock:zpulse:some-loop").Val() != 1 {
		t.Errorf("without the extra box: %d; want 400 and the lock kept", status)
	}
	status, _, _ = s.postForm(t, "/locks/zpulse:some-loop/force-release", "/locks/zpulse:some-loop/force-release", url.Values{"token": {"instance-1"}, "internal": {"yes"}})
	if status != http.StatusSeeOther || rdb.Exists(context.Background(), "lock:zpulse:some-loop").Val() != 0 {
		t.Errorf("with the extra box: %d; want 303 and the lock released", status)
	}
	if _, body := s.get(t, "/login"); !strings.Contains(body, "Access is open") {
		t.Error("/login without an admin token does not say access is open")
	}
}
