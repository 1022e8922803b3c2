package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// makeToken makes a personal token through the API as the bootstrap admin and returns its
// secret.
func makeToken(t *testing.T, s *testServer, adminToken, name, role string) string {
	t.Helper()
	status, body := s.postJSON(t, "/api/v1/tokens", `{"name":"`+name+`","role":"`+role+`"}`, "Authorization", "Bearer "+adminToken)
	if status != http.StatusCreated {
		t.Fatalf("make token %s: %d %s", name, status, body)
	}
	var made struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(body), &made); err != nil || made.Token == "" {
		t.Fatalf("make token: %v %s", err, body)
	}
	return made.Token
}

// Personal tokens through the API: made once by an admin (the secret answered once, listed
// never), acting with their role, refused at once when revoked; bad input answers 400 naming
// the field, a name in use 409, the calls 401/403 to others.
func TestPersonalTokensAPI(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := newTestServerWith(t, "the-admin", nil, func(d *Deps) { d.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	admin := []string{"Authorization", "Bearer the-admin"}
	viewer := makeToken(t, s, "the-admin", "ann.viewer", "viewer")
	operator := makeToken(t, s, "the-admin", "ops-bot", "operator")
	for _, c := range []struct{ body, field string }{
		{`{"role":"viewer"}`, "name"}, {`{"name":"x"}`, "role"}, {`{"name":"Bad Name","role":"viewer"}`, "name"},
		{`{"name":"` + strings.Repeat("a", 65) + `","role":"viewer"}`, "name"}, {`{"name":"x","role":"root"}`, "role"},
		{`{"name":"x","role":"none"}`, "role"}, {`{"name":"x","role":"viewer","expires_in":"soon"}`, "expires_in"},
		{`{"name":"x","role":"viewer","expires_in":"-1h"}`, "expires_in"},
	} {
		status, body := s.postJSON(t, "/api/v1/tokens", c.body, admin...)
		if status != http.StatusBadRequest || !strings.Contains(body, `"field":"`+c.field+`"`) {
			t.Errorf("POST /api/v1/tokens %s: %d %s, want 400 naming %s", c.body, status, body, c.field)
		}
	}
	if status, body := s.postJSON(t, "/api/v1/tokens", `{"name":"ops-bot","role":"viewer"}`, admin...); status != http.StatusConflict {
		t.Errorf("a name in use: %d %s", status, body)
	}
	// Only an admin makes, lists and revokes tokens.
	if status, _ := s.postJSON(t, "/api/v1/tokens", `{"name":"mine","role":"admin"}`, "Authorization", "Bearer "+operator); status != http.StatusForbidden {
		t.Errorf("an operator made a token: %d", status)
	}
	if status, _, _ := s.do(t, http.MethodGet, "/api/v1/tokens", "", "", "Authorization", "Bearer "+viewer); status != http.StatusForbidden {
		t.Errorf("a viewer listed tokens: %d", status)
	}
	if status, _, _ := s.do(t, http.MethodGet, "/api/v1/tokens", "", ""); status != http.StatusUnauthorized {
		t.Errorf("anonymous listed tokens: %d", status)
	}
	status, body, _ := s.do(t, http.MethodGet, "/api/v1/tokens", "", "", admin...)
	if status != http.StatusOK || !strings.Contains(body, `"ann.viewer"`) || !strings.Contains(body, `"created_by":"admin"`) ||
		strings.Contains(body, viewer) || strings.Contains(body, `"token"`) {
		t.Errorf("GET /api/v1/tokens: %d %s", status, body)
	}
	// Each acts with its role: a viewer reads, may not add points; an operator adds points,
	// may not reset the board.
	if status, _ := s.postJSON(t, "/api/v1/boards/b1/scores", `{"player":"p","points":1}`, "Authorization", "Bearer "+viewer); status != http.StatusForbidden {
		t.Errorf("a viewer added points: %d", status)
	}
	if status, body := s.postJSON(t, "/api/v1/boards/b1/scores", `{"player":"p","points":1}`, "Authorization", "Bearer "+operator); status != http.StatusOK {
		t.Errorf("an operator could not add points: %d %s", status, body)
	}
	if status, _, _ := s.do(t, http.MethodDelete, "/api/v1/boards/b1", "", "", "Authorization", "Bearer "+operator); status != http.StatusForbidden {
		t.Errorf("an operator reset a board: %d", status)
	}
	// Revoked: the next request is refused, on a read too (a wrong bearer token).
	if status, _, _ := s.do(t, http.MethodDelete, "/api/v1/tokens/ops-bot", "", "", admin...); status != http.StatusNoContent {
		t.Fatalf("revoke: %d", status)
	}
	if status, _, _ := s.do(t, http.MethodDelete, "/api/v1/tokens/ops-bot", "", "", admin...); status != http.StatusNotFound {
		t.Errorf("revoke twice: %d", status)
	}
	if status, _ := s.postJSON(t, "/api/v1/boards/b1/scores", `{"player":"p","points":1}`, "Authorization", "Bearer "+operator); status != http.StatusUnauthorized {
		t.Errorf("a revoked token added points: %d", status)
	}
	if status, _, _ := s.do(t, http.MethodGet, "/api/v1/boards", "", "", "Authorization", "Bearer "+operator); status != http.StatusUnauthorized {
		t.Errorf("a revoked token read: %d", status)
	}
	// A token in the address is no credential.
	if status, _ := s.postJSON(t, "/api/v1/boards/b1/scores?token="+url.QueryEscape(viewer)+"&access_token="+url.QueryEscape(viewer), `{"player":"p","points":1}`); status != http.StatusUnauthorized {
		t.Errorf("a token in the address was taken: %d", status)
	}
	if strings.Contains(logs.String(), viewer) || strings.Contains(logs.String(), operator[5:]) {
		t.Error("a token's secret was logged")
	}
}

// A personal token's sign-in opens a session with its name and role; revoking the token
// ends the session at once, and closes its live connection within the recheck.
func TestTokenSessionEndsWithItsToken(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	w := newTestWiring(t, rdb, "the-admin")
	w.deps.SessionRecheck = 20 * time.Millisecond
	s := serveWiring(t, rdb, w)
	secret := makeToken(t, s, "the-admin", "ann", "operator")
	ck := s.signIn(t, secret)
	if _, body := s.get(t, "/"); !strings.Contains(body, "ann") || !strings.Contains(body, "operator") {
		t.Errorf("the header does not name ann, operator")
	}
	if !s.canChange(t) {
		t.Error("an operator's session may not add points")
	}
	conn, _, err := dialWS(s, http.Header{"Origin": {s.URL}, "Cookie": {ck.Name + "=" + ck.Value}}, domain.TopicLocks)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bearer, _, err := dialWS(s, http.Header{"Origin": {s.URL}, "Authorization": {"Bearer " + secret}}, domain.TopicLocks)
	if err != nil {
		t.Fatal(err)
	}
	defer bearer.Close()
	if status, _, _ := s.do(t, http.MethodDelete, "/api/v1/tokens/ann", "", "", "Authorization", "Bearer the-admin"); status != http.StatusNoContent {
		t.Fatalf("revoke: %d", status)
	}
	if s.canChange(t) {
		t.Error("a revoked token's session still changes data")
	}
	for name, c := range map[string]*websocket.Conn{"session": conn, "bearer": bearer} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			_, _, err := c.ReadMessage()
			if err == nil {
				continue
			}
			if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
				t.Errorf("the %s's live connection ended with %v, want close 1008 once its token was revoked", name, err)
			}
			break
		}
	}
}

// The tokens page: an admin lists, makes (the secret shown once) and revokes tokens; a
// viewer gets 403, an anonymous reader the sign-in page.
func TestTokensPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "the-admin", nil)
	viewer := makeToken(t, s, "the-admin", "ann", "viewer")
	if status, _, h := s.do(t, http.MethodGet, "/tokens", "", ""); status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Errorf("anonymous: %d %q", status, h.Get("Location"))
	}
	if status, _, _ := s.do(t, http.MethodGet, "/tokens", "", "", "Authorization", "Bearer "+viewer); status != http.StatusForbidden {
		t.Errorf("a viewer: %d", status)
	}
	s.signIn(t, "the-admin")
	status, body := s.get(t, "/tokens")
	if status != http.StatusOK || !strings.Contains(body, `data-token="ann"`) || strings.Contains(body, viewer) {
		t.Fatalf("GET /tokens: %d", status)
	}
	status, body, _ = s.postForm(t, "/tokens", "/tokens", url.Values{"name": {"Bad Name"}, "role": {"viewer"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "1 to 64 characters") {
		t.Errorf("a bad name: %d", status)
	}
	status, body, _ = s.postForm(t, "/tokens", "/tokens", url.Values{"name": {"ci"}, "role": {"operator"}, "expires_in": {"720h"}})
	if status != http.StatusCreated || !strings.Contains(body, `data-testid="made-secret">zpt_`) || !strings.Contains(body, "data-copy") {
		t.Fatalf("make a token: %d", status)
	}
	if _, body = s.get(t, "/tokens"); strings.Contains(body, "made-secret") || !strings.Contains(body, `data-token="ci"`) {
		t.Error("the secret is shown again, or the token is not listed")
	}
	if status, _, h := s.postForm(t, "/tokens", "/tokens/ann/revoke", url.Values{}); status != http.StatusSeeOther || h.Get("Location") != "/tokens" {
		t.Errorf("revoke: %d", status)
	}
	if status, _, _ := s.do(t, http.MethodGet, "/api/v1/boards", "", "", "Authorization", "Bearer "+viewer); status != http.StatusUnauthorized {
		t.Errorf("a token revoked on the page still reads: %d", status)
	}
}

// Forged, malformed and expired credentials get 401 (or the sign-in page), never a 500 and
// never access.
func TestForgedTokensAreRefusedNotFailed(t *testing.T) {
	t.Parallel()
	clock := domain.NewManualClock(testNow)
	rdb := redistest.DB(t)
	w := newTestWiring(t, rdb, "the-admin", wiringOptions{clock: clock})
	s := serveWiring(t, rdb, w)
	_, short, err := w.svc.Auth.CreateToken(t.Context(), domain.NewAPIToken{Name: "short", Role: domain.RoleAdmin, ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	for _, bearer := range []string{short, "zpt_", "zpt_0123456789abcdef_", "zpt_0123456789abcdef_" + strings.Repeat("A", 43),
		"zpt_ZZZZ_x", "zpt_" + strings.Repeat("0", 4000), "zpt_\xff\xfe", "the-admin2", "Bearer"} {
		status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"p","points":1}`, "Authorization", "Bearer "+bearer)
		if status != http.StatusUnauthorized {
			t.Errorf("bearer %.30q: %d, want 401", bearer, status)
		}
	}
	for _, cookie := range []string{"forged", strings.Repeat("x", 4000), "a:b:c"} {
		status, _, h := s.do(t, http.MethodPost, "/api/v1/boards/b/scores", "application/json", `{"player":"p","points":1}`, "Cookie", "zpulse_session="+cookie)
		if status != http.StatusUnauthorized {
			t.Errorf("API with cookie %.20q: %d", cookie, status)
		}
		status, _, h = s.do(t, http.MethodGet, "/tokens", "", "", "Cookie", "zpulse_session="+cookie)
		if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
			t.Errorf("page with cookie %.20q: %d", cookie, status)
		}
	}
}
