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
