package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The second article's fixed window adopted through the API: the check counts on the
// service's own key, the view shows the count, bad layouts are a 400.
func TestAPIAdoptedLimiter(t *testing.T) {
	s := newTestServer(t, "", nil)
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/api", "application/json",
		`{"kind":"limiter","key":"limit:api:{client}:{window_start}","encoding":"fixed_window","limit":2,"window_ms":60000}`)
	if status != http.StatusOK {
		t.Fatalf("put: %d %s", status, b)
	}
	for i, want := range []bool{true, true, false} {
		status, b := s.postJSON(t, "/api/v1/sources/api/check", `{"client":"user1001"}`)
		var res struct{ Allowed bool }
		json.Unmarshal([]byte(b), &res)
		if status != http.StatusOK || res.Allowed != want {
			t.Errorf("check %d: %d %s, want allowed=%v", i, status, b, want)
		}
	}
	for body, want := range map[string]string{
		`{"kind":"limiter","key":"limit:api:{client}","encoding":"fixed_window","limit":2,"window_ms":60000}`: "{window_start}",
		`{"kind":"board","key":"game:rank:*","encoding":"none"}`:                                              "glob",
		`{"kind":"queue","key":"q","encoding":"fifo"}`:                                                        "run_at",
		`{"kind":"pipe","key":"q"}`:                                                                           `kind must be`,
	} {
		status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/x", "application/json", body)
		if status != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("%s: %d %s; want 400 mentioning %s", body, status, b, want)
		}
	}
	if status, b := s.get(t, "/api/v1/sources/nope"); status != http.StatusNotFound {
		t.Errorf("unknown source: %d %s", status, b)
	}
}

// The pages: adopt from the form, see the source's page.
func TestSourcePages(t *testing.T) {
	s := newTestServer(t, "", nil)
	status, _, h := s.postForm(t, "/sources", "/sources", url.Values{"name": {"daily"}, "kind": {"board"}, "key": {"game:rank:{yyyymmdd}"}, "encoding": {"first_reached_e10"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/sources/daily" {
		t.Fatalf("adopt: %d %v", status, h)
	}
	if status, b := s.get(t, "/sources/daily"); status != http.StatusOK || !strings.Contains(b, "game:rank:") {
		t.Errorf("source page: %d", status)
	}
	status, b, _ := s.postForm(t, "/sources", "/sources", url.Values{"name": {"bad"}, "kind": {"board"}, "key": {"a*"}, "encoding": {"none"}})
	if status != http.StatusBadRequest || !strings.Contains(b, "glob") {
		t.Errorf("bad layout: %d", status)
	}
}

// A service with a one-minute window on rate:<client> beside the 10-second default policy:
// after a check the limiter page warns of the longer writer, until the policy states it.
func TestLimiterPageWarnsOfLongerWriter(t *testing.T) {
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	s.rdb.ZAdd(ctx, "rate:c-1", redis.Z{Score: float64(s.rdb.Time(ctx).Val().UnixMilli()), Member: "svc-uuid"})
	s.rdb.PExpire(ctx, "rate:c-1", time.Minute) // what the article's script does with a 1-minute window
	if status, b := s.postJSON(t, "/api/v1/limiters/default/check", `{"client":"c-1"}`); status != http.StatusOK {
		t.Fatalf("check: %d %s", status, b)
	}
	if _, b := s.get(t, "/limiters/default"); !strings.Contains(b, `data-testid="longer-writer"`) {
		t.Error("the limiter page does not warn of the longer writer")
	}
	status, b, _ := s.do(t, http.MethodPut, "/api/v1/limiters/default", "application/json", `{"algorithm":"sliding_log","limit":3,"window_ms":10000,"shared_window_ms":120000}`)
	if status != http.StatusOK || !strings.Contains(b, `"shared_window_ms":120000`) {
		t.Fatalf("put: %d %s", status, b)
	}
	if _, b := s.get(t, "/limiters/default"); strings.Contains(b, `data-testid="longer-writer"`) {
		t.Error("the warning stays once the shared window covers the writer")
	}
}
