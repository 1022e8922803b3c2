package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/audit"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The audit table: every mutating route of the router's table (the role table's walk) writes
// exactly one entry a request, accepted or refused, naming its declared action, the actor,
// how it came and its outcome. A new route without a declaration fails the role table; one
// that writes no entry, or two, fails here.
func TestEveryMutatingRouteWritesOneAuditEntry(t *testing.T) {
	t.Parallel()
	routes := mutatingRoutes(t)
	trail := audit.NewTrail(redistest.DB(t), store.DefaultKeys, 0, 0)
	tokens := newMemoryTokens(map[string]domain.Role{"viewer": domain.RoleViewer, "operator": domain.RoleOperator, "admin": domain.RoleAdmin})
	s := newFakeServer(t, "the-admin-token", nil, func(d *Deps) { d.Tokens = tokens; d.Trail = trail })
	ctx := context.Background()
	count := func() int {
		p, err := trail.List(ctx, domain.AuditFilter{Limit: domain.AuditPageMax})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Entries)
	}
	for _, r := range routes {
		for _, as := range []struct {
			bearer, actor string
			role          domain.Role
		}{{"", "anonymous", domain.RoleNone}, {roleTokens[domain.RoleViewer], "viewer", domain.RoleViewer}, {"the-admin-token", "admin", domain.RoleAdmin}} {
			before := count()
			status, _ := roleRequest(t, s, r.method, r.path, r.page, as.bearer)
			after := count()
			if after != before+1 {
				t.Errorf("%s %s as %s: %d audit entries written, want 1", r.method, r.path, as.actor, after-before)
				continue
			}
			p, _ := trail.List(ctx, domain.AuditFilter{Limit: 1})
			e := p.Entries[0]
			wantVia := domain.ViaAPI
			if r.page {
				wantVia = domain.ViaPage
			}
			okOutcome := status < http.StatusBadRequest
			if e.Action != r.access.action || e.Actor != as.actor || e.Role != as.role.String() || e.Via != wantVia ||
				(e.Outcome == domain.AuditOK) != okOutcome || e.Client == "" || e.RequestID == "" {
				t.Errorf("%s %s as %s (answered %d): entry %+v", r.method, r.path, as.actor, status, e)
			}
		}
	}
}

// The trail never holds a payload, a token's secret, a lock token or a password: each change
// that carries one is made through the API against a real Redis, then every entry is searched
// for them.
func TestTheAuditTrailHoldsNoSecret(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	s := newTestServer(t, "the-admin-token-for-secrets", rdb)
	auth := []string{"Authorization", "Bearer the-admin-token-for-secrets"}
	do := func(method, path, body string) string {
		t.Helper()
		status, out, _ := s.do(t, method, path, "application/json", body, auth...)
		if status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, status, out)
		}
		return out
	}
	do("POST", "/api/v1/queues/mail/jobs", `{"id":"j1","priority":1,"payload":{"card":"4111-SECRET-PAYLOAD"}}`)
	var lease struct{ Token string }
	json.Unmarshal([]byte(do("POST", "/api/v1/locks/deploy/acquire", `{"ttl_ms":60000}`)), &lease)
	do("POST", "/api/v1/locks/deploy/release", `{"token":"`+lease.Token+`"}`)
	var tok struct{ Token string }
	json.Unmarshal([]byte(do("POST", "/api/v1/tokens", `{"name":"ci","role":"operator"}`)), &tok)
	do("POST", "/api/v1/boards/g/scores", `{"player":"p1","points":7}`)
	// A wrong password on the sign-in form, and a bearer guess.
	s.postForm(t, "/login", "/login", url.Values{"token": {"a-wrong-PASSWORD-guess"}})
	s.do(t, "POST", "/api/v1/boards/g/scores", "application/json", `{"player":"p1","points":1}`, "Authorization", "Bearer zpt_GUESSED_SECRET")
	if lease.Token == "" || tok.Token == "" {
		t.Fatalf("no lock token (%q) or token secret (%q) to look for", lease.Token, tok.Token)
	}
	status, body, _ := s.do(t, "GET", "/api/v1/audit?limit=500", "", "", auth...)
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/audit: %d %s", status, body)
	}
	var page domain.AuditPage
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Entries) < 7 {
		t.Fatalf("%d entries, %v: %s", len(page.Entries), err, body)
	}
	for _, secret := range []string{"4111-SECRET-PAYLOAD", lease.Token, tok.Token, "the-admin-token-for-secrets", "a-wrong-PASSWORD-guess", "zpt_GUESSED_SECRET"} {
		if strings.Contains(body, secret) {
			t.Errorf("the audit trail holds %q", secret)
		}
	}
	raw := rdb.XRange(context.Background(), store.DefaultKeys.Audit(), "-", "+").Val()
	if len(raw) != len(page.Entries) {
		t.Errorf("the stream holds %d entries, the API gave %d", len(raw), len(page.Entries))
	}
}

// The trail is the admins': 401 without credentials, 403 below admin, on the page, its export,
// the API and its live topic.
func TestTheAuditTrailIsForAdmins(t *testing.T) {
	t.Parallel()
	tokens := newMemoryTokens(map[string]domain.Role{"viewer": domain.RoleViewer, "operator": domain.RoleOperator, "admin": domain.RoleAdmin})
	s := newFakeServer(t, "the-admin-token", nil, func(d *Deps) {
		d.Tokens = tokens
		d.Trail = audit.NewTrail(redistest.DB(t), store.DefaultKeys, 0, 0)
	})
	for _, path := range []string{"/api/v1/audit", "/audit", "/audit/export.csv"} {
		if status, _, _ := s.do(t, "GET", path, "", ""); status != http.StatusUnauthorized && status != http.StatusSeeOther {
			t.Errorf("GET %s without credentials: %d", path, status)
		}
		for _, role := range []domain.Role{domain.RoleViewer, domain.RoleOperator} {
			if status, _, _ := s.do(t, "GET", path, "", "", "Authorization", "Bearer "+roleTokens[role]); status != http.StatusForbidden {
				t.Errorf("GET %s as %s: %d, want 403", path, role, status)
			}
		}
		if status, body, _ := s.do(t, "GET", path, "", "", "Authorization", "Bearer "+roleTokens[domain.RoleAdmin]); status != http.StatusOK {
			t.Errorf("GET %s as admin: %d %.200s", path, status, body)
		}
	}
	if status, _, _ := s.do(t, "GET", "/ws?topic=audit", "", "", "Authorization", "Bearer "+roleTokens[domain.RoleViewer]); status != http.StatusForbidden {
		t.Errorf("the audit topic to a viewer: %d, want 403", status)
	}
	if status, body, _ := s.do(t, "GET", "/api/v1/audit?since=yesterday", "", "", "Authorization", "Bearer "+roleTokens[domain.RoleAdmin]); status != http.StatusBadRequest || !strings.Contains(body, "since") {
		t.Errorf("a bad since: %d %s", status, body)
	}
}

// A board's, a queue's, a job's, a limiter's and the locks' pages show admins their latest
// changes, and nobody else.
func TestPagesShowAdminsTheirRecentChanges(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "the-admin-token-for-recent", redistest.DB(t))
	admin := []string{"Authorization", "Bearer the-admin-token-for-recent"}
	for _, c := range []struct{ path, body string }{
		{"/api/v1/boards/g/scores", `{"player":"p1","points":7}`},
		{"/api/v1/queues/mail/jobs", `{"id":"j1","priority":1,"payload":"x"}`},
		{"/api/v1/locks/deploy/acquire", `{"ttl_ms":60000}`},
		{"/api/v1/limiters/api", `{"algorithm":"fixed_window","limit":5,"window_ms":60000}`},
		{"/api/v1/limiters/api/check", `{"client":"c1"}`},
	} {
		method := "POST"
		if !strings.HasSuffix(c.path, "/check") && strings.HasPrefix(c.path, "/api/v1/limiters/") {
			method = "PUT"
		}
		if status, body, _ := s.do(t, method, c.path, "application/json", c.body, admin...); status >= 300 {
			t.Fatalf("POST %s: %d %s", c.path, status, body)
		}
	}
	// A retry of a waiting job is refused (409), and recorded all the same, on the job's target.
	if status, body, _ := s.do(t, "POST", "/api/v1/queues/mail/jobs/j1/retry", "application/json", `{}`, admin...); status != http.StatusConflict {
		t.Fatalf("retry of a waiting job: %d %s", status, body)
	}
	for page, want := range map[string]string{
		"/boards/g":            "+7 points to p1 (score 7)",
		"/queues/mail":         "job.enqueue",
		"/queues/mail/jobs/j1": "job.edit",
		"/locks":               "lock.acquire",
		"/limiters/api":        "limiter.try",
	} {
		status, body, _ := s.do(t, "GET", page, "", "", admin...)
		if status != http.StatusOK || !strings.Contains(body, `data-testid="recent-changes"`) || !strings.Contains(body, want) {
			t.Errorf("GET %s as admin: %d, recent changes with %q: %v", page, status, want, strings.Contains(body, "recent-changes"))
		}
		if _, body, _ := s.do(t, "GET", page, "", ""); strings.Contains(body, `data-testid="recent-changes"`) {
			t.Errorf("GET %s without credentials shows the recent changes", page)
		}
	}
}
