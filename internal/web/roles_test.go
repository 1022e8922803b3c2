package web

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// roleTokens are the bearer secrets of the role table's test: one personal token per role,
// and the bootstrap admin token.
var roleTokens = map[domain.Role]string{domain.RoleViewer: "secret-viewer", domain.RoleOperator: "secret-operator", domain.RoleAdmin: "secret-admin"}

// declaredRoute is a mutating route and what it declared (access), found by the role table.
type declaredRoute struct {
	method, path string // echo's path (":board")
	page         bool
	access       access
}

// mutatingRoutes walks the router's table (e.Routes()) and sends each mutating route one
// request, to learn what it declared: a route that declares nothing is reported by t.
func mutatingRoutes(t *testing.T) []declaredRoute {
	t.Helper()
	var (
		mu   sync.Mutex
		seen *access
	)
	tokens := newMemoryTokens(map[string]domain.Role{"viewer": domain.RoleViewer, "operator": domain.RoleOperator, "admin": domain.RoleAdmin})
	s := newFakeServer(t, "the-admin-token", nil, func(d *Deps) { d.Tokens = tokens })
	e := s.Config.Handler.(*echo.Echo)
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			err := next(c)
			if a, ok := accessOf(c); ok {
				mu.Lock()
				seen = &a
				mu.Unlock()
			}
			return err
		}
	})
	var out []declaredRoute
	for _, r := range e.Routes() {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions, echo.RouteNotFound:
			continue
		}
		if r.Name == methodNotAllowedRoute || strings.Contains(r.Path, "*") {
			continue
		}
		mu.Lock()
		seen = nil
		mu.Unlock()
		page := !strings.HasPrefix(r.Path, "/api/")
		roleRequest(t, s, r.Method, r.Path, page, "")
		mu.Lock()
		got := seen
		mu.Unlock()
		if got == nil {
			t.Errorf("%s %s declares no role and action: register it with form(role, action) or write(role, action) in routes.go", r.Method, r.Path)
			continue
		}
		out = append(out, declaredRoute{r.Method, r.Path, page, *got})
	}
	slices.SortFunc(out, func(a, b declaredRoute) int { return strings.Compare(a.path+a.method, b.path+b.method) })
	return out
}

var pathParam = regexp.MustCompile(`:[a-z_]+`)

// roleRequest sends one request to a route, with the bearer token given ("" none), a CSRF
// token for a page, an empty JSON body for the API.
func roleRequest(t *testing.T, s *testServer, method, path string, page bool, bearer string) (int, http.Header) {
	t.Helper()
	url := pathParam.ReplaceAllStringFunc(path, func(p string) string {
		if p == ":period" {
			return "daily"
		}
		return "x1"
	})
	req, err := http.NewRequest(method, s.URL+url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if page {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: "zpulse_csrf", Value: "role-table-csrf"})
		req.Header.Set(echo.HeaderXCSRFToken, "role-table-csrf")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// The role table: every mutating route declares its role and action; each answers 401 (the
// API) or the sign-in page (a form) without credentials, 403 to the roles below the one it
// declares, and lets its own role and those above through.
func TestEveryMutatingRouteDeclaresItsRole(t *testing.T) {
	t.Parallel()
	routes := mutatingRoutes(t)
	if len(routes) < 60 {
		t.Fatalf("only %d mutating routes found", len(routes))
	}
	tokens := newMemoryTokens(map[string]domain.Role{"viewer": domain.RoleViewer, "operator": domain.RoleOperator, "admin": domain.RoleAdmin})
	s := newFakeServer(t, "the-admin-token", nil, func(d *Deps) { d.Tokens = tokens })
	actions := map[string]bool{}
	for _, r := range routes {
		a := r.access
		if a.action == "" || !regexp.MustCompile(`^[a-z]+\.[a-z_]+$`).MatchString(a.action) {
			t.Errorf("%s %s: action %q is not dotted (board.add_points)", r.method, r.path, a.action)
		}
		actions[a.action] = true
		if a.role == domain.RoleNone {
			continue // signing in and out
		}
		status, h := roleRequest(t, s, r.method, r.path, r.page, "")
		switch {
		case r.page && (status != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "/login")):
			t.Errorf("%s %s without credentials: %d %q, want the sign-in page", r.method, r.path, status, h.Get("Location"))
		case !r.page && status != http.StatusUnauthorized:
			t.Errorf("%s %s without credentials: %d, want 401", r.method, r.path, status)
		}
		for role := domain.RoleViewer; role <= domain.RoleAdmin; role++ {
			status, _ := roleRequest(t, s, r.method, r.path, r.page, roleTokens[role])
			refused := status == http.StatusForbidden || status == http.StatusUnauthorized
			if role.Allows(a.role) == refused {
				t.Errorf("%s %s (%s, needs %s) as %s: %d", r.method, r.path, a.action, a.role, role, status)
			}
			if !role.Allows(a.role) && status != http.StatusForbidden {
				t.Errorf("%s %s as %s: %d, want 403", r.method, r.path, role, status)
			}
		}
	}
	for _, must := range []string{"board.add_points", "board.reset", "board.period_reset", "season.end", "jobs.requeue", "job.edit", "lock.force_release", "limiter.policy_put", "token.create"} {
		if !actions[must] {
			t.Errorf("no route declares %s", must)
		}
	}
}

// openapi.json says each operation's role (x-zpulse-role) and action (x-zpulse-action) as
// routes.go declares them; one action needs one role wherever it is declared (page and API).
func TestOpenAPIRolesAreTheDeclaredOnes(t *testing.T) {
	t.Parallel()
	doc := loadAPIDoc(t)
	roleOf := map[string]domain.Role{}
	for _, r := range mutatingRoutes(t) {
		a := r.access
		if prev, ok := roleOf[a.action]; ok && prev != a.role {
			t.Errorf("%s needs %s on one route and %s on another", a.action, prev, a.role)
		}
		roleOf[a.action] = a.role
		if r.page {
			continue
		}
		path := strings.TrimPrefix(pathParam.ReplaceAllStringFunc(r.path, func(p string) string { return "{" + p[1:] + "}" }), "/api/v1")
		item := doc.Paths.Find(path)
		if item == nil || item.GetOperation(r.method) == nil {
			t.Errorf("%s %s is not in openapi.json", r.method, path)
			continue
		}
		op := item.GetOperation(r.method)
		if got := op.Extensions["x-zpulse-role"]; got != a.role.String() {
			t.Errorf("%s %s: openapi.json says role %v, routes.go %s", r.method, path, got, a.role)
		}
		if got := op.Extensions["x-zpulse-action"]; got != a.action {
			t.Errorf("%s %s: openapi.json says action %v, routes.go %s", r.method, path, got, a.action)
		}
	}
}
