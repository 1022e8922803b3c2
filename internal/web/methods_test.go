package web

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// Over every registered route: GET routes answer HEAD as GET does, without a body; every other
// method on a known path answers 405 with the Allow header listing the route's methods (the
// error envelope under /api), before any CSRF, JSON or sign-in check; OPTIONS answers 204
// with the same Allow.
func TestMethodsAcrossTheRouter(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "secret", nil, nil)
	e := s.Config.Handler.(*echo.Echo)
	param := regexp.MustCompile(`:[a-z_]+`)
	allowed := map[string][]string{}
	for _, r := range e.Routes() {
		if strings.Contains(r.Path, "*") || r.Name == methodNotAllowedRoute || !slices.Contains(knownMethods, r.Method) {
			continue
		}
		allowed[r.Path] = append(allowed[r.Path], r.Method)
	}
	if len(allowed) < 40 {
		t.Fatalf("only %d paths registered", len(allowed))
	}
	for route, methods := range allowed {
		path := param.ReplaceAllString(route, "x")
		if slices.Contains(methods, http.MethodGet) != slices.Contains(methods, http.MethodHead) {
			t.Errorf("%s: GET and HEAD differ: %v", route, methods)
		}
		var want []string
		for _, m := range knownMethods {
			if slices.Contains(methods, m) {
				want = append(want, m)
			}
		}
		allow := strings.Join(want, ", ")
		for _, m := range knownMethods {
			if slices.Contains(methods, m) {
				continue
			}
			status, body, h := s.do(t, m, path, "text/plain", "x")
			if status != http.StatusMethodNotAllowed || h.Get("Allow") != allow {
				t.Errorf("%s %s: %d Allow %q, want 405 Allow %q", m, path, status, h.Get("Allow"), allow)
				continue
			}
			if strings.HasPrefix(route, "/api/") && m != http.MethodHead {
				var env httpio.APIError
				if err := json.Unmarshal([]byte(body), &env); err != nil || env.Error.Code != "method_not_allowed" {
					t.Errorf("%s %s: body %.40s, want the method_not_allowed envelope", m, path, body)
				}
			}
		}
		if status, _, h := s.do(t, http.MethodOptions, path, "", ""); status != http.StatusNoContent || h.Get("Allow") != allow {
			t.Errorf("OPTIONS %s: %d Allow %q, want 204 Allow %q", path, status, h.Get("Allow"), allow)
		}
	}
}

// HEAD answers what GET answers, headers included, with no body.
func TestHeadIsGetWithoutBody(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	f.Leaderboards.SummariesFn = func(context.Context) ([]domain.BoardSummary, error) { return []domain.BoardSummary{}, nil }
	f.Leaderboards.TopFn = func(_ context.Context, board string, _ domain.Period, _ int) (domain.BoardTop, error) {
		return domain.BoardTop{Board: board, Entries: []domain.Entry{}}, nil
	}
	s := newFakeServer(t, "", f, nil)
	for _, path := range []string{"/healthz", "/readyz", "/", "/boards", "/boards/x", "/queues", "/locks", "/limiters", "/login",
		"/api/v1/boards", "/api/v1/boards/x/top", "/api/v1/queues", "/api/v1/openapi.json", "/nope", "/api/v1/nope"} {
		getStatus, _, getHeader := s.do(t, http.MethodGet, path, "", "")
		status, body, h := s.do(t, http.MethodHead, path, "", "")
		if status != getStatus || body != "" || h.Get("Content-Type") != getHeader.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q body %q; GET %d %q", path, status, h.Get("Content-Type"), body, getStatus, getHeader.Get("Content-Type"))
		}
	}
	if status, _, _ := s.do(t, http.MethodHead, "/healthz", "", ""); status != http.StatusOK {
		t.Errorf("HEAD /healthz: %d", status)
	}
}

// The issue's own example.
func TestDeleteOnAReadAnswers405(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, nil)
	status, body, h := s.do(t, http.MethodDelete, "/api/v1/boards/x/top", "", "")
	if status != http.StatusMethodNotAllowed || h.Get("Allow") != "GET, HEAD" || !strings.Contains(body, `"code":"method_not_allowed"`) {
		t.Errorf("DELETE /api/v1/boards/x/top: %d Allow %q %s", status, h.Get("Allow"), body)
	}
	// A page: the error page, not a CSRF refusal.
	status, body, h = s.do(t, http.MethodPost, "/boards", "application/x-www-form-urlencoded", "")
	if status != http.StatusMethodNotAllowed || h.Get("Allow") != "GET, HEAD" || !strings.Contains(body, "<html") {
		t.Errorf("POST /boards: %d Allow %q", status, h.Get("Allow"))
	}
}
