package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// GET /api/v1/limiters/:limiter/clients pages through every client seen (beyond the page's
// 50), and the lookup GET …/clients/:client reads a client's standing without counting;
// bad paging input is a 400 naming the parameter (issue 35.4).
func TestAPILimiterClientsPagingAndLookup(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/limiters/paged", "application/json", `{"algorithm":"sliding_log","limit":100,"window_ms":60000}`)
	for i := range 60 {
		if status, b, _ := s.do(t, http.MethodPost, "/api/v1/limiters/paged/check", "application/json", fmt.Sprintf(`{"client":"c%02d"}`, i)); status != http.StatusOK {
			t.Fatalf("check: %d %s", status, b)
		}
	}
	if err := s.svc.Limiters.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen, cursor := map[string]bool{}, ""
	for range 5 {
		status, b := s.get(t, "/api/v1/limiters/paged/clients?limit=25&cursor="+cursor)
		var page domain.ClientPage
		if status != http.StatusOK || json.Unmarshal([]byte(b), &page) != nil || page.Total != 60 {
			t.Fatalf("page: %d %s", status, b)
		}
		for _, c := range page.Clients {
			if seen[c.Client] {
				t.Errorf("%s paged twice", c.Client)
			}
			seen[c.Client] = true
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	if len(seen) != 60 {
		t.Errorf("paged %d clients, want 60", len(seen))
	}
	for range 3 {
		if _, b := s.get(t, "/api/v1/limiters/paged/clients/c05"); !strings.Contains(b, `"remaining":99`) {
			t.Errorf("lookup: %s, want 99 remaining every time", b)
		}
	}
	for q, field := range map[string]string{"limit=0": "limit", "limit=abc": "limit", "limit=1001": "limit", "cursor=junk": "cursor"} {
		if status, b := s.get(t, "/api/v1/limiters/paged/clients?"+q); status != http.StatusBadRequest || !strings.Contains(b, field) {
			t.Errorf("%s: %d %s; want 400 naming %s", q, status, b, field)
		}
	}
}

// The limiter's page lists every client seen, 50 a page with next and previous, and looks
// one up by id without counting a request; a bad cursor is a 400 naming it.
func TestLimiterPageAllClients(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/limiters/paged", "application/json", `{"algorithm":"sliding_log","limit":100,"window_ms":60000}`)
	for i := range 60 {
		s.do(t, http.MethodPost, "/api/v1/limiters/paged/check", "application/json", fmt.Sprintf(`{"client":"c%02d"}`, i))
	}
	if err := s.svc.Limiters.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, first := s.get(t, "/limiters/paged")
	if n := strings.Count(first, `?client=c`); n != 50 || !strings.Contains(first, `data-testid="clients-next"`) || strings.Contains(first, `data-testid="clients-prev"`) {
		t.Errorf("first page: %d clients listed, want 50 with a next link and no previous", n)
	}
	_, second := s.get(t, "/limiters/paged?cursor=50")
	if n := strings.Count(second, `?client=c`); n != 10 || strings.Contains(second, `data-testid="clients-next"`) || !strings.Contains(second, `data-testid="clients-prev"`) {
		t.Errorf("second page: %d clients listed, want 10 with a previous link and no next", n)
	}
	for range 3 {
		if _, b := s.get(t, "/limiters/paged?client=c05"); !strings.Contains(b, "99 left now") {
			t.Error("the lookup of c05 does not show 99 left every time")
		}
	}
	if status, b := s.get(t, "/limiters/paged?cursor=junk"); status != http.StatusBadRequest || !strings.Contains(b, "cursor") {
		t.Errorf("a bad cursor: %d", status)
	}
}
