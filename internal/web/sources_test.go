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

	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The second article's fixed window adopted through the API: the check counts on the
// service's own key, the view shows the count, bad layouts are a 400.
func TestAPIAdoptedLimiter(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// An adopted limiter cannot write outside its layout: a layout that could name another
// thing's key and a client that would leave its part of the layout are 400s naming the
// field, a key of another type at the client's key is a 409 wrong_type naming the key, on
// the API and on the forms alike, and the board beside is untouched.
func TestAdoptedLimiterStaysInItsLayout(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	s.rdb.ZAdd(ctx, "leaderboard:victim", redisZ(100, "alice"), redisZ(50, "bob"))
	s.rdb.HSet(ctx, "ratelog:h", "f", "v")
	envelope := func(b string) (code, message string) {
		var env httpio.APIError
		json.Unmarshal([]byte(b), &env)
		return env.Error.Code, env.Error.Message
	}
	for _, key := range []string{"{client}", "leaderboard:{client}", "l{client}", "zpulse:{client}"} {
		status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/x", "application/json",
			`{"kind":"limiter","key":"`+key+`","encoding":"sliding_log","limit":5,"window_ms":1000}`)
		wantStatus, wantCode := http.StatusConflict, "conflict" // it could name a key of zpulse's families
		if key == "{client}" {
			wantStatus, wantCode = http.StatusBadRequest, "invalid" // it could name any key
		}
		if code, msg := envelope(b); status != wantStatus || code != wantCode || !strings.HasPrefix(msg, "key ") {
			t.Errorf("layout %s: %d %s, want %d %s naming the key", key, status, b, wantStatus, wantCode)
		}
	}
	if status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/rl", "application/json",
		`{"kind":"limiter","key":"ratelog:{client}","encoding":"sliding_log","limit":5,"window_ms":1000}`); status != http.StatusOK {
		t.Fatalf("put: %d %s", status, b)
	}
	status, b := s.postJSON(t, "/api/v1/sources/rl/check", `{"client":"leaderboard:victim"}`)
	if code, msg := envelope(b); status != http.StatusBadRequest || code != "invalid" || !strings.HasPrefix(msg, "client ") {
		t.Errorf("client leaderboard:victim: %d %s, want 400 invalid naming the client", status, b)
	}
	status, b = s.postJSON(t, "/api/v1/sources/rl/check", `{"client":"h"}`)
	if code, msg := envelope(b); status != http.StatusConflict || code != "wrong_type" || !strings.Contains(msg, `"ratelog:h" holds a hash`) {
		t.Errorf("client h on a hash: %d %s, want 409 wrong_type naming the key and its type", status, b)
	}

	status, b, _ = s.postForm(t, "/sources", "/sources", url.Values{"name": {"all"}, "kind": {"limiter"}, "key": {"{client}"},
		"encoding": {"sliding_log"}, "limit": {"5"}, "window": {"1s"}})
	if status != http.StatusBadRequest || !strings.Contains(b, "must begin with a fixed part") {
		t.Errorf("form, layout {client}: %d, want 400 with the message inline", status)
	}
	status, b, _ = s.postForm(t, "/sources/rl", "/sources/rl/try", url.Values{"client": {"leaderboard:victim"}})
	if status != http.StatusBadRequest || !strings.Contains(b, "“Client” may not contain") {
		t.Errorf("form, client leaderboard:victim: %d, want 400 with the message inline", status)
	}
	status, b, _ = s.postForm(t, "/sources/rl", "/sources/rl/try", url.Values{"client": {"h"}})
	if status != http.StatusConflict || !strings.Contains(b, "holds a hash") {
		t.Errorf("form, client h on a hash: %d, want 409 with the message inline", status)
	}
	if z := s.rdb.ZRangeWithScores(ctx, "leaderboard:victim", 0, -1).Val(); len(z) != 2 || s.rdb.PTTL(ctx, "leaderboard:victim").Val() != -time.Nanosecond {
		t.Errorf("leaderboard:victim changed: %v", z)
	}
	if h := s.rdb.HGetAll(ctx, "ratelog:h").Val(); len(h) != 1 || h["f"] != "v" {
		t.Errorf("ratelog:h changed: %v", h)
	}
}

// Sources saved before overlapping layouts were refused are flagged on /sources and in its
// API, and a new overlapping layout is refused with 409 naming the source.
func TestOverlappingSourcesAreFlaggedAndRefused(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := t.Context()
	if status, body, _ := s.do(t, http.MethodPut, "/api/v1/sources/day", "application/json", `{"kind":"board","key":"svc:rank:{yyyymmdd}","encoding":"none"}`); status != http.StatusOK {
		t.Fatalf("PUT day = %d %s", status, body)
	}
	// One saved before overlaps were refused: saving it again is refused.
	s.rdb.HSet(ctx, "zpulse:sources", "log", `{"name":"log","kind":"limiter","key":"svc:rank:{client}","encoding":"sliding_log","limit":5,"window_ms":60000}`)
	status, body, _ := s.do(t, http.MethodPut, "/api/v1/sources/log", "application/json", `{"kind":"limiter","key":"svc:rank:{client}","encoding":"sliding_log","limit":5,"window_ms":60000}`)
	if status != http.StatusConflict || !strings.Contains(body, `"code":"conflict"`) || !strings.Contains(body, `\"day\"`) {
		t.Errorf("PUT an overlapping log = %d %s, want 409 naming day", status, body)
	}
	if status, body := s.get(t, "/api/v1/sources"); status != http.StatusOK || !strings.Contains(body, `"overlaps":[{"source":"day","other":"log","example":"svc:rank:`) {
		t.Errorf("GET /api/v1/sources = %d %s, want the pair flagged", status, body)
	}
	if status, body := s.get(t, "/sources"); status != http.StatusOK || !strings.Contains(body, `data-testid="source-overlaps"`) || strings.Count(body, `data-testid="source-overlap"`) != 2 {
		t.Errorf("GET /sources = %d, want the pair flagged", status)
	}
}
