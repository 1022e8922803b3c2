package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// badInput is one refused request: method, path, body, and headers beyond the admin's
// bearer token and a JSON Content-Type.
type badInput struct {
	method, path, body string
	header             []string
}

// badInputs are bad numbers, names, bodies and headers for every kind of API endpoint.
var badInputs = []badInput{
	// numbers
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1.5}`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1e3}`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":"1"}`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":99999999999999999999}`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":NaN}`, nil},
	{"PUT", "/api/v1/boards/b/players/p", `{"score":"x"}`, nil},
	{"POST", "/api/v1/boards/b/trim", `{"keep":-1}`, nil},
	{"PUT", "/api/v1/boards/b", `{"retention_days":-5}`, nil},
	{"GET", "/api/v1/boards/b/top?n=abc", "", nil},
	{"GET", "/api/v1/boards/b/top?n=1e2", "", nil},
	{"GET", "/api/v1/boards/b/entries?limit=-1", "", nil},
	{"GET", "/api/v1/boards/b/players/p/around?n=x", "", nil},
	{"POST", "/api/v1/locks/x/acquire", `{"ttl_ms":0}`, nil},
	{"POST", "/api/v1/locks/x/acquire", `{"ttl_ms":"1000"}`, nil},
	{"POST", "/api/v1/locks/x/acquire", `{"wait_ms":-1}`, nil},
	{"POST", "/api/v1/locks/x/extend", `{"token":"t","ttl_ms":1.5}`, nil},
	{"PUT", "/api/v1/limiters/p", `{"algorithm":"fixed_window","limit":0,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/limiters/p", `{"algorithm":"fixed_window","limit":1,"window_ms":-1}`, nil},
	{"PUT", "/api/v1/queues/q", `{"max_attempts":0}`, nil},
	{"POST", "/api/v1/queues/q/jobs", `{"priority":"high"}`, nil},
	{"POST", "/api/v1/queues/q/jobs", `{"delay_ms":-1}`, nil},
	{"POST", "/api/v1/queues/q/poll", `{"lease_ms":1.5}`, nil},
	{"POST", "/api/v1/queues/q/poll", `{"wait_ms":3600000}`, nil},
	{"POST", "/api/v1/queues/q/poll", `{"lease_ms":30000,"consumer":"a b"}`, nil},
	{"POST", "/api/v1/queues/q/batch/poll", `{"count":1,"lease_ms":30000,"consumer":""}`, nil},
	// names
	{"POST", "/api/v1/boards/b%20c/scores", `{"player":"a","points":1}`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"","points":1}`, nil},
	{"GET", "/api/v1/boards/b%7Bx%7D/top", "", nil},
	{"POST", "/api/v1/locks/x%20y/acquire", `{}`, nil},
	{"POST", "/api/v1/locks/x/acquire", `{"owner":""}`, nil},
	{"POST", "/api/v1/locks/x/release", `{}`, nil},
	{"PUT", "/api/v1/limiters/bad%20name", `{"algorithm":"fixed_window","limit":1,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/limiters/p", `{"algorithm":"nope","limit":1,"window_ms":1000}`, nil},
	{"POST", "/api/v1/limiters/default/check", `{"client":""}`, nil},
	{"GET", "/api/v1/limiters/bad%20name/clients/c", "", nil},
	{"PUT", "/api/v1/queues/q", `{"kind":"nope"}`, nil},
	// adopted sources: layouts that could name another thing's key, clients that would leave
	// their part of the layout, a client's key of another type
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"{client}","encoding":"sliding_log","limit":5,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"{client}:{window_start}","encoding":"fixed_window","limit":5,"window_ms":60000}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"leaderboard:{client}","encoding":"sliding_log","limit":5,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"q{client}","encoding":"sliding_log","limit":5,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"rate:{client}","encoding":"sliding_log","limit":5,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"queue","key":"zpulse:sources","encoding":"priority"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"{yyyymmdd}","encoding":"none"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"lock:x","encoding":"none"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"lock","key":"lea"}`, nil},
	{"POST", "/api/v1/sources/api/check", `{"client":"leaderboard:b"}`, nil},
	{"POST", "/api/v1/sources/api/check", `{"client":"x:1784977500"}`, nil},
	{"POST", "/api/v1/sources/rl/check", `{"client":"a{b}"}`, nil},
	{"POST", "/api/v1/sources/rl/check", `{"client":"h"}`, nil},
	// the zh article's layouts: hash tags, zones, max_ts, token buckets; an adopted board's reads
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"{a}{b}:{yyyymmdd}","encoding":"none"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"{queue:q}:jobs","encoding":"none"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"{{client}}:x","encoding":"sliding_log","limit":5,"window_ms":1000}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"game:rank:{yyyymmdd}","encoding":"none","zone":"Mars/Base"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"game:rank:all","encoding":"none","zone":"Asia/Shanghai"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"game:rank:{yyyymmdd}","encoding":"first_reached_e10","max_ts":0}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"game:rank:{yyyymmdd}","encoding":"first_reached_e10","max_ts":1.5}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"game:rank:{yyyymmdd}","encoding":"first_reached_e10","max_ts":"9999999999"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"board","key":"game:rank:{yyyymmdd}","encoding":"none","max_ts":9999999999}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"tb:{client}","encoding":"token_bucket","limit":5,"rate_per_s":1,"tokens_field":"","time_field":"ts"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"tb:{client}","encoding":"token_bucket","limit":5,"rate_per_s":1,"tokens_field":"t","time_field":"t"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"tb:{client}","encoding":"token_bucket","limit":5,"rate_per_s":1,"tokens_field":"t","time_field":"ts","time_unit":"us"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"tb:{client}","encoding":"token_bucket","limit":5,"rate_per_s":0,"tokens_field":"t","time_field":"ts"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"tb:{client}","encoding":"token_bucket","limit":5,"tokens_field":"t","time_field":"ts"}`, nil},
	{"PUT", "/api/v1/sources/s", `{"kind":"limiter","key":"tb:{client}","encoding":"token_bucket","limit":0,"rate_per_s":1,"tokens_field":"t","time_field":"ts"}`, nil},
	{"POST", "/api/v1/sources/tb/check", `{"client":"a:b"}`, nil},
	{"POST", "/api/v1/sources/tb/check", `{"client":"s"}`, nil},
	{"GET", "/api/v1/sources/brd/entries?limit=0", "", nil},
	{"GET", "/api/v1/sources/brd/entries?limit=1e2", "", nil},
	{"GET", "/api/v1/sources/brd/entries?cursor=garbage", "", nil},
	{"GET", "/api/v1/sources/brd/entries?cursor=" + forgedCursor("NaN", "p"), "", nil},
	{"GET", "/api/v1/sources/rl/entries", "", nil},
	{"GET", "/api/v1/sources/bad%20name/players/p", "", nil},
	{"GET", "/api/v1/sources/brd/players/p/around?n=x", "", nil},
	{"GET", "/api/v1/sources/brd/players/p/around?n=101", "", nil},
	{"GET", "/api/v1/sources/bad%20name/export.csv", "", nil},
	{"GET", "/api/v1/sources/rl/export.csv", "", nil},
	{"POST", "/api/v1/queues/q%20r/jobs", `{}`, nil},
	{"POST", "/api/v1/queues/q/jobs", `{"run_at":"yesterday"}`, nil},
	// bodies
	{"POST", "/api/v1/boards/b/scores", ``, nil},
	{"POST", "/api/v1/boards/b/scores", `{`, nil},
	{"POST", "/api/v1/boards/b/scores", `[]`, nil},
	{"POST", "/api/v1/boards/b/scores", `null`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1,"extra":1}`, nil},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}{}`, nil},
	{"POST", "/api/v1/limiters/default/check", `{}`, nil},
	{"PUT", "/api/v1/queues/q", `"settings"`, nil},
	{"POST", "/api/v1/queues/q/jobs", `{"payload":` + strings.Repeat(`"x`, 1) + `}`, nil},
	{"POST", "/api/v1/queues/q/jobs", `{"payload":"` + strings.Repeat("x", 2<<20) + `"}`, nil},
	// headers
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Content-Type", "text/plain"}},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Content-Type", ""}},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Content-Type", "application/x-www-form-urlencoded"}},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Authorization", ""}},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Authorization", "Basic s3cret"}},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Authorization", "Bearer"}},
	{"POST", "/api/v1/boards/b/scores", `{"player":"a","points":1}`, []string{"Authorization", "Bearer s3cret-not"}},
	// job search, bulk actions, retry with an edit
	{"GET", "/api/v1/queues/q/jobs?q=" + strings.Repeat("x", 201), "", nil},
	{"GET", "/api/v1/queues/q/jobs?q=a&limit=0", "", nil},
	{"GET", "/api/v1/queues/q/jobs?q=a&state=done", "", nil},
	{"GET", "/api/v1/queues/q/jobs?q=a&cursor=forged", "", nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"wipe","ids":["a"]}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete"}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","ids":[]}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","ids":[""]}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","ids":"a"}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","ids":["a"],"match":{"state":"dead"}}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","match":{"state":"gone"}}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","match":{"state":"dead","cursor":"forged"}}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","match":{"state":"dead","q":"` + strings.Repeat("x", 201) + `"}}`, nil},
	{"POST", "/api/v1/queues/q/bulk", `{"action":"delete","ids":[` + strings.Repeat(`"a",`, 1000) + `"a"]}`, nil},
	{"POST", "/api/v1/queues/q%20r/bulk", `{"action":"delete","ids":["a"]}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"priority":12}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"priority":"1"}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"run_at":"tomorrow"}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"priority":1,"run_at":"2026-01-01T00:00:00Z"}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"payload":"` + strings.Repeat("x", 70<<10) + `"}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"payload":1,"extra":1}`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `{"payload":{}}`, []string{"Content-Type", "text/plain"}},
	// cursors
	{"GET", "/api/v1/boards/b/entries?cursor=garbage", "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + forgedCursor("NaN", "p"), "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + forgedCursor("0x1p-2", "p"), "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + forgedCursor("1e400", "p"), "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + forgedCursor("1", ""), "", nil},
	// seasons, one-period resets, the encoding fix
	{"GET", "/api/v1/boards/b/seasons/0/top", "", nil},
	{"GET", "/api/v1/boards/b/seasons/x/entries", "", nil},
	{"GET", "/api/v1/boards/b/seasons/1.5/players/p", "", nil},
	{"GET", "/api/v1/boards/b/seasons/1/top", "", nil},
	{"GET", "/api/v1/boards/b/seasons/1/entries?limit=0", "", nil},
	{"GET", "/api/v1/boards/b/seasons/1/entries?cursor=garbage", "", nil},
	{"GET", "/api/v1/boards/b/seasons/+1/export.csv", "", nil},
	{"POST", "/api/v1/boards/b%20c/seasons", "", nil},
	{"POST", "/api/v1/boards/b:2026-11-30/seasons", "", nil},
	{"PUT", "/api/v1/boards/b", `{"keep_seasons":-1}`, nil},
	{"PUT", "/api/v1/boards/b", `{"keep_seasons":1001}`, nil},
	{"PUT", "/api/v1/boards/b", `{"season_every":"hourly"}`, nil},
	{"PUT", "/api/v1/boards/b", `{"season_zone":"Mars/Olympus"}`, nil},
	{"PUT", "/api/v1/boards/b", `{"season_zone":"Local"}`, nil},
	{"DELETE", "/api/v1/boards/b?period=hourly", "", nil},
	{"POST", "/api/v1/boards/b/encoding", `{}`, nil},
	{"POST", "/api/v1/boards/b/encoding", `{"tie_break":"random"}`, nil},
	{"POST", "/api/v1/boards/b/encoding", `{"tie_break":"none","x":1}`, nil},
	// loose input: null bodies, a body on a call that takes none, repeated query parameters,
	// cursors read less strictly than bodies, a body too large for a call that takes none
	{"PUT", "/api/v1/queues/q", `null`, nil},
	{"POST", "/api/v1/queues/q/jobs/a/retry", `null`, nil},
	{"POST", "/api/v1/queues/q/poll", ` null `, nil},
	{"POST", "/api/v1/boards/b/seasons", `{"keep":1}`, nil},
	{"POST", "/api/v1/boards/b/seasons", `[]`, nil},
	{"POST", "/api/v1/boards/b/seasons", `null`, nil},
	{"GET", "/api/v1/boards/b/entries?limit=5&limit=500", "", nil},
	{"GET", "/api/v1/boards/b/top?n=1&n=2", "", nil},
	{"GET", "/api/v1/queues/q/jobs?state=waiting&state=dead", "", nil},
	{"DELETE", "/api/v1/boards/b?period=daily&period=weekly", "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + rawCursor(`{"s":"1","m":"p","m":"q"}`), "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + rawCursor(`{"s":"1","m":"p","x":0}`), "", nil},
	{"GET", "/api/v1/boards/b/entries?cursor=" + rawCursor("{\"s\":\"1\",\"m\":\"p\xff\"}"), "", nil},
	{"GET", "/api/v1/sources/brd/entries?cursor=" + rawCursor(`{"s":"1","m":"p","m":"q"}`), "", nil},
	{"GET", "/api/v1/boards/b/seasons/1/entries?cursor=" + rawCursor(`{"s":"1","m":"p","x":0}`), "", nil},
	{"DELETE", "/api/v1/boards/b", strings.Repeat("x", 2<<20), nil},
	{"POST", "/api/v1/queues/q/pause", strings.Repeat("x", 2<<20), nil},
}

// rawCursor is a board cursor of the caller's JSON text.
func rawCursor(text string) string { return base64.RawURLEncoding.EncodeToString([]byte(text)) }

// forgedCursor is an entries cursor with a score and member of the caller's choosing.
func forgedCursor(score, member string) string {
	b, _ := json.Marshal(map[string]string{"s": score, "m": member})
	return base64.RawURLEncoding.EncodeToString(b)
}

// Every bad input is a 4xx with the error envelope, and writes no key. (A wrong bearer
// token writes one: its address's attempt counter, which is what it is for.)
func TestBadInputsPerEndpoint(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	ctx := context.Background()
	// A board with entries, so cursors reach the page script.
	s.rdb.ZAdd(ctx, "leaderboard:b", redisZ(1, "p"), redisZ(2, "q"))
	// Adopted limiters to try, and a hash at one's client key.
	for name, body := range map[string]string{
		"api": `{"kind":"limiter","key":"limit:api:{client}:{window_start}","encoding":"fixed_window","limit":5,"window_ms":60000}`,
		"rl":  `{"kind":"limiter","key":"ratelog:{client}","encoding":"sliding_log","limit":5,"window_ms":1000}`,
		"tb":  `{"kind":"limiter","key":"bucket:{client}","encoding":"token_bucket","limit":5,"rate_per_s":1,"tokens_field":"tokens","time_field":"ts"}`,
		"brd": `{"kind":"board","key":"leaderboard:b","encoding":"none"}`,
	} {
		if status, b, _ := s.do(t, http.MethodPut, "/api/v1/sources/"+name, "application/json", body, "Authorization", "Bearer s3cret"); status != http.StatusOK {
			t.Fatalf("adopt %s: %d %s", name, status, b)
		}
	}
	s.rdb.HSet(ctx, "ratelog:h", "f", "v")
	s.rdb.Set(ctx, "bucket:s", "a string", 0)
	// The job cursors' secret is made by the first list or search that needs it (SETNX, once):
	// made here, so that no case below counts it as a key it wrote.
	if status, b, _ := s.do(t, http.MethodGet, "/api/v1/queues/q/jobs?state=waiting", "", ""); status != http.StatusOK {
		t.Fatalf("list jobs: %d %s", status, b)
	}
	attempts := redisrepo.DefaultKeys.SignInAttempts("127.0.0.1")
	before := s.rdb.Keys(ctx, "*").Val()
	slices.Sort(before)
	for _, in := range badInputs {
		name := in.method + " " + in.path + " " + fmt.Sprintf("%.40s", in.body) + " " + strings.Join(in.header, ":")
		t.Run(name, func(t *testing.T) {
			header := append([]string{"Authorization", "Bearer s3cret"}, in.header...)
			ct := "application/json"
			if in.method == http.MethodGet {
				ct = ""
			}
			status, body, h := s.do(t, in.method, in.path, ct, in.body, header...)
			if status < 400 || status > 499 {
				t.Errorf("%d %s, want 4xx", status, body)
			}
			var env httpio.APIError
			if err := json.Unmarshal([]byte(body), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" ||
				!strings.HasPrefix(h.Get("Content-Type"), "application/json") {
				t.Errorf("not the error envelope: %q (%v)", body, err)
			}
			after := s.rdb.Keys(ctx, "*").Val()
			after = slices.DeleteFunc(after, func(k string) bool { return k == attempts })
			slices.Sort(after)
			if !slices.Equal(before, after) {
				t.Errorf("keys changed: before %v, after %v", before, after)
			}
		})
		s.rdb.Del(ctx, attempts) // one wrong token must not limit the cases after it
	}
}

// Peek answers what the next request would get: a client with its whole quota is allowed.
func TestPeekOfAFreshClientIsAllowed(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for _, algo := range []string{"sliding_log", "fixed_window", "sliding_counter"} {
		body := `{"algorithm":"` + algo + `","limit":2,"window_ms":60000}`
		if status, b, _ := s.do(t, http.MethodPut, "/api/v1/limiters/p-"+algo, "application/json", body); status != http.StatusOK {
			t.Fatalf("%s: %d %s", algo, status, b)
		}
		_, b := s.get(t, "/api/v1/limiters/p-"+algo+"/clients/fresh")
		if !strings.HasPrefix(b, `{"allowed":true,"limit":2,"remaining":2`) {
			t.Errorf("%s: peek of a fresh client: %s", algo, b)
		}
	}
	s.do(t, http.MethodPut, "/api/v1/limiters/bucket", "application/json", `{"algorithm":"token_bucket","rate_per_s":1,"burst":2}`)
	if _, b := s.get(t, "/api/v1/limiters/bucket/clients/fresh"); !strings.HasPrefix(b, `{"allowed":true`) {
		t.Errorf("token bucket: peek of a fresh client: %s", b)
	}
	if _, b := s.get(t, "/api/v1/limiters/default/clients/fresh"); !strings.HasPrefix(b, `{"allowed":true`) {
		t.Errorf("default: peek of a fresh client: %s", b)
	}
}

// A query parameter given twice is refused by name, whichever the call, before its handler
// reads either value.
func TestRepeatedQueryParameterIsRefusedByName(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for path, name := range map[string]string{"/api/v1/boards/b/entries?limit=5&cursor=&limit=500": "limit", "/api/v1/queues?x=1&x=2": "x"} {
		status, body := s.get(t, path)
		var env httpio.APIError
		if err := json.Unmarshal([]byte(body), &env); err != nil || status != http.StatusBadRequest || env.Error.Code != "invalid" ||
			env.Error.Field != name || !strings.Contains(env.Error.Message, "is given 2 times") {
			t.Errorf("GET %s = %d %s, want 400 naming the parameter", path, status, body)
		}
	}
}
