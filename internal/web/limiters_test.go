package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The article's test through the API: limit 3 per 10 s on the policy "default".
func TestAPILimiterArticleExample(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	var got []string
	for _, client := range []string{"c-42", "c-42", "c-42", "c-42", "c-99"} {
		status, b := s.postJSON(t, "/api/v1/limiters/default/check", `{"client":"`+client+`"}`)
		if status != http.StatusOK {
			t.Fatalf("check %s: %d %s", client, status, b)
		}
		var r struct {
			Allowed   bool  `json:"allowed"`
			Limit     int64 `json:"limit"`
			Remaining int64 `json:"remaining"`
			Retry     int64 `json:"retry_after_ms"`
			Reset     int64 `json:"reset_ms"`
		}
		json.Unmarshal([]byte(b), &r)
		got = append(got, strings.TrimSpace(b))
		if client == "c-42" && r.Limit != 3 {
			t.Errorf("limit = %d", r.Limit)
		}
	}
	if !strings.HasPrefix(got[0], `{"allowed":true,"limit":3,"remaining":2,"retry_after_ms":0,"reset_ms":10`) ||
		!strings.HasPrefix(got[3], `{"allowed":false,"limit":3,"remaining":0,"retry_after_ms":`) ||
		!strings.HasPrefix(got[4], `{"allowed":true,"limit":3,"remaining":2`) {
		t.Errorf("answers:\n%s", strings.Join(got, "\n"))
	}
	status, b := s.get(t, "/api/v1/limiters/default/clients/c-42")
	if status != http.StatusOK || !strings.HasPrefix(b, `{"allowed":false,"limit":3,"remaining":0`) {
		t.Errorf("peek: %d %s", status, b)
	}
	if n := s.rdb.ZCard(context.Background(), "rate:c-42").Val(); n != 3 {
		t.Errorf("ZCARD rate:c-42 = %d, want 3 (peeks and rejections add nothing)", n)
	}
}

func TestAPILimiterPolicies(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, b := s.doJSON(t, http.MethodPut, "/api/v1/limiters/api", `{"algorithm":"token_bucket","rate_per_s":2.5,"burst":10}`)
	if status != http.StatusOK || strings.TrimSpace(b) != `{"name":"api","algorithm":"token_bucket","rate_per_s":2.5,"burst":10}` {
		t.Fatalf("PUT: %d %s", status, b)
	}
	if status, b = s.get(t, "/api/v1/limiters/api"); status != http.StatusOK || !strings.Contains(b, `"burst":10`) {
		t.Errorf("GET: %d %s", status, b)
	}
	if status, b = s.get(t, "/api/v1/limiters"); status != http.StatusOK || !strings.Contains(b, `"name":"default"`) || !strings.Contains(b, `"name":"api"`) {
		t.Errorf("list: %d %s", status, b)
	}
	if status, b = s.postJSON(t, "/api/v1/limiters/nope/check", `{"client":"a"}`); status != http.StatusNotFound || !strings.Contains(b, "PUT /api/v1/limiters/nope") {
		t.Errorf("unknown limiter: %d %s", status, b)
	}
	for _, c := range []struct{ path, body, want string }{
		{"/api/v1/limiters/x", `{"algorithm":"leaky","limit":1,"window_ms":1000}`, "algorithm must be one of"},
		{"/api/v1/limiters/x", `{"limit":1,"window_ms":1000}`, "algorithm is required"},
		{"/api/v1/limiters/x", `{"algorithm":"fixed_window","limit":1.5,"window_ms":1000}`, "limit must be a whole number"},
		{"/api/v1/limiters/x", `{"algorithm":"fixed_window","limit":10}`, "window_ms is required"},
		{"/api/v1/limiters/x", `{"algorithm":"fixed_window","limit":10,"window_ms":1}`, "window_ms must be a whole number of milliseconds from 10"},
		{"/api/v1/limiters/x", `{"algorithm":"sliding_log","limit":2000000,"window_ms":1000}`, "from 1 to 1,000,000"},
		{"/api/v1/limiters/x", `{"algorithm":"token_bucket","burst":10}`, "rate_per_s is required"},
		{"/api/v1/limiters/x", `{"algorithm":"token_bucket","rate_per_s":-1,"burst":10}`, "rate_per_s must be a number of tokens a second from 0.001"},
		{"/api/v1/limiters/x", `{"algorithm":"token_bucket","rate_per_s":1}`, "burst is required"},
		{"/api/v1/limiters/default", `{"algorithm":"token_bucket","rate_per_s":1,"burst":1}`, "stays sliding_log"},
		{"/api/v1/limiters/x", `{"algorithm":"sliding_log","limit":1,"window_ms":1000,"name":"y"}`, "is not allowed here"},
	} {
		t.Run("PUT "+c.path+" "+c.body, func(t *testing.T) {
			status, b := s.doJSON(t, http.MethodPut, c.path, c.body)
			if status != http.StatusBadRequest || !strings.Contains(b, c.want) {
				t.Errorf("PUT %s %s: %d %s; want 400 mentioning %q", c.path, c.body, status, b, c.want)
			}
		})
	}
	for _, body := range []string{`{}`, `{"client":""}`, `{"client":5}`, `{"client":"` + strings.Repeat("x", 65) + `"}`, `{"client":"pa:{c}"}`} {
		if status, b := s.postJSON(t, "/api/v1/limiters/default/check", body); status != http.StatusBadRequest || !strings.Contains(b, `"invalid"`) {
			t.Errorf("check %s: %d %s", body, status, b)
		}
	}
	if k := keys(t, s.rdb); len(k) != 0 { // the api policy is one of zpulse's own keys
		t.Errorf("bad input wrote %v", k)
	}
}

func TestAPILimiterNeedsTheAdminToken(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	if status, _ := s.doJSON(t, http.MethodPut, "/api/v1/limiters/x", `{"algorithm":"sliding_log","limit":1,"window_ms":1000}`); status != http.StatusUnauthorized {
		t.Errorf("PUT without token: %d", status)
	}
	if status, _ := s.postJSON(t, "/api/v1/limiters/default/check", `{"client":"a"}`); status != http.StatusUnauthorized {
		t.Errorf("check without token: %d", status)
	}
	if status, _ := s.get(t, "/api/v1/limiters/default/clients/a"); status != http.StatusOK {
		t.Errorf("peek needs no token: %d", status)
	}
}

// --api-rate-limit protects the JSON API per client with a policy, with the usual and the
// IETF draft's headers.
func TestAPIRateLimitMiddleware(t *testing.T) {
	t.Parallel()
	s := newTestServerWith(t, "", nil, func(d *Deps) { d.APIRateLimit = "api" })
	// No policy yet: the API is not limited (and the call that creates it passes).
	status, _, h := s.do(t, http.MethodGet, "/api/v1/boards/b/top", "", "")
	if status != http.StatusOK || h.Get("X-RateLimit-Limit") != "" {
		t.Errorf("without the policy: %d, headers %v", status, h)
	}
	if status, b := s.doJSON(t, http.MethodPut, "/api/v1/limiters/api", `{"algorithm":"sliding_log","limit":3,"window_ms":60000}`); status != http.StatusOK {
		t.Fatalf("PUT: %d %s", status, b)
	}
	for i := range 3 {
		status, _, h = s.do(t, http.MethodGet, "/api/v1/boards/b/top", "", "")
		if status != http.StatusOK || h.Get("X-RateLimit-Remaining") != []string{"2", "1", "0"}[i] {
			t.Errorf("request %d: %d remaining %q", i, status, h.Get("X-RateLimit-Remaining"))
		}
	}
	if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Reset") != "60" ||
		h.Get("RateLimit-Policy") != `"api";q=3;w=60` || h.Get("RateLimit") != `"api";r=0;t=60` {
		t.Errorf("headers: %v", h)
	}
	status, b, h := s.do(t, http.MethodGet, "/api/v1/boards/b/top", "", "")
	var e httpio.APIError
	json.Unmarshal([]byte(b), &e)
	if status != http.StatusTooManyRequests || e.Error.Code != "rate_limited" || !strings.Contains(e.Error.Message, "3 per 1 min") ||
		h.Get("Retry-After") != "60" || h.Get("RateLimit") != `"api";r=0;t=60` {
		t.Errorf("over the limit: %d %s %v", status, b, h)
	}
	// Another client (a bearer token) has its own quota; the token itself is not a key.
	status, _, h = s.do(t, http.MethodGet, "/api/v1/boards/b/top", "", "", "Authorization", "Bearer tok-1")
	if status != http.StatusOK || h.Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("other client: %d %v", status, h)
	}
	for _, k := range keys(t, s.rdb) {
		if strings.Contains(k, "tok-1") {
			t.Errorf("the token is in a key: %s", k)
		}
	}
	if n := s.rdb.Exists(context.Background(), "rate:sl:api:{ip:127.0.0.1}").Val(); n != 1 {
		t.Error("the IP client's log is not rate:sl:api:{ip:127.0.0.1}")
	}
	// X-Forwarded-For does not buy a fresh quota.
	if status, _, _ := s.do(t, http.MethodGet, "/api/v1/boards/b/top", "", "", "X-Forwarded-For", "10.9.9.9"); status != http.StatusTooManyRequests {
		t.Errorf("X-Forwarded-For escaped the limit: %d", status)
	}
	// Pages are not limited.
	if status, _ := s.get(t, "/boards/b"); status != http.StatusOK {
		t.Errorf("page: %d", status)
	}
}

func TestLimiterPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body := s.get(t, "/limiters/default")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	for _, want := range []string{"3 requests per 10 s · sliding-window log", "ZSET rate:&lt;client&gt;", `topic=limiter%3Adefault`,
		`id="` + "limiter-64656661756c74" + `"`, `id="limiter-try"`, `id="limiter-policy"`, "No client has requests"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if status, body = s.get(t, "/limiters/fresh"); status != http.StatusOK || !strings.Contains(body, "There is no policy named fresh") || strings.Contains(body, `id="limiter-try"`) {
		t.Errorf("unknown limiter page: %d", status)
	}
	if status, body = s.get(t, "/limiters"); status != http.StatusOK || !strings.Contains(body, `data-limiter="default"`) {
		t.Errorf("list: %d", status)
	}
	if status, _ = s.get(t, "/limiters/bad%20name"); status != http.StatusBadRequest {
		t.Errorf("bad name: %d", status)
	}
	status, _, h := s.do(t, http.MethodGet, "/limiters?limiter=api", "", "")
	if status != http.StatusSeeOther || h.Get("Location") != "/limiters/api" {
		t.Errorf("open: %d %q", status, h.Get("Location"))
	}
	if status, body = s.get(t, "/limiters/open"); status != http.StatusOK || !strings.Contains(body, "There is no policy named open") {
		t.Errorf("a limiter named open: %d", status)
	}
}

// The try form fires N requests and shows each answer: 5 against a limit of 3.
func TestTryForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body, _ := s.postForm(t, "/limiters/default", "/limiters/default/try", url.Values{"client": {"c-42"}, "n": {"5"}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(body), `<section id="limiter-try"`) ||
		!strings.Contains(body, "3 allowed") || !strings.Contains(body, "2 rejected") || strings.Count(body, `data-allowed="false"`) != 2 {
		t.Errorf("try: %d %.600s", status, body)
	}
	view, err := s.limiters(t).View(context.Background(), "default")
	if err != nil || len(view.Clients) != 1 || !view.Clients[0].Full() {
		t.Errorf("view after the try: %+v %v", view, err)
	}
	frag, err := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "")(domain.LimiterTopic("default"), domain.Admin, view)
	if err != nil || !strings.Contains(string(frag), `data-client="c-42"`) || !strings.Contains(string(frag), `data-full="true"`) {
		t.Errorf("fragment: %v %.300s", err, frag)
	}
	for _, bad := range []url.Values{{"client": {""}, "n": {"5"}}, {"client": {"a"}, "n": {"0"}}, {"client": {"a"}, "n": {"101"}}, {"client": {"a"}, "n": {"x"}}} {
		status, body, _ := s.postForm(t, "/limiters/default", "/limiters/default/try", bad, "HX-Request", "true")
		if status != http.StatusBadRequest || !strings.Contains(body, `class="error-text"`) {
			t.Errorf("try %v: %d", bad, status)
		}
	}
	// Without JavaScript the answer is the whole page with the results.
	status, body, _ = s.postForm(t, "/limiters/default", "/limiters/default/try", url.Values{"client": {"c-7"}, "n": {"1"}})
	if status != http.StatusOK || !strings.Contains(body, "<html") || !strings.Contains(body, "1 allowed") {
		t.Errorf("try without JS: %d", status)
	}
}

func TestPolicyForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	_, page := s.get(t, "/limiters/api")
	if !strings.Contains(page, `name="new" value="1"`) || !strings.Contains(page, "Create policy") {
		t.Error("the page of a new limiter does not offer to create it")
	}
	status, _, h := s.postForm(t, "/limiters/api", "/limiters/api/policy", url.Values{"algorithm": {"fixed_window"}, "limit": {"100"}, "window": {"1m"}, "rate": {""}, "burst": {""}})
	if status != http.StatusSeeOther || h.Get("Location") != "/limiters/api?saved=1" {
		t.Fatalf("create: %d %q", status, h.Get("Location"))
	}
	if _, body := s.get(t, "/limiters/api?saved=1"); !strings.Contains(body, "100 requests per 1 min · fixed window") || !strings.Contains(body, `data-testid="saved"`) {
		t.Error("the page does not show the saved policy")
	}
	status, body, h := s.postForm(t, "/limiters/api", "/limiters/api/policy", url.Values{"algorithm": {"token_bucket"}, "rate": {"0.5"}, "burst": {"4"}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.Contains(body, "Saved.") || h.Get("HX-Refresh") != "" {
		t.Errorf("htmx save: %d %.300s", status, body)
	}
	if _, _, h := s.postForm(t, "/limiters/fresh", "/limiters/fresh/policy", url.Values{"algorithm": {"sliding_log"}, "limit": {"5"}, "window": {"1s"}, "new": {"1"}}, "HX-Request", "true"); h.Get("HX-Refresh") != "true" {
		t.Error("creating a policy with htmx does not reload the page to show the try form")
	}
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"algorithm": {"fixed_window"}, "limit": {"1.5"}, "window": {"1m"}}, "“Limit” must be a whole number"},
		{url.Values{"algorithm": {"fixed_window"}, "limit": {"5"}, "window": {"soon"}}, "“Window” must be a duration"},
		{url.Values{"algorithm": {"fixed_window"}, "limit": {"5"}, "window": {"2ms"}}, "“Window” must be a duration such as 10s, 1m30s or 500ms (whole milliseconds) from 10 ms to 24 h"},
		{url.Values{"algorithm": {"token_bucket"}, "rate": {"fast"}, "burst": {"4"}}, "rate_per_s must be a number"},
		{url.Values{"algorithm": {"magic"}, "limit": {"5"}, "window": {"1s"}}, "algorithm must be one of"},
	} {
		t.Run(c.form.Encode(), func(t *testing.T) {
			status, body, _ := s.postForm(t, "/limiters/api", "/limiters/api/policy", c.form, "HX-Request", "true")
			if status != http.StatusBadRequest || !strings.Contains(body, c.want) {
				t.Errorf("%v: %d; want 400 with %q\n%.400s", c.form, status, c.want, body)
			}
		})
	}
	if p, _ := s.limiters(t).Policy(context.Background(), "api"); p.Algorithm != domain.TokenBucket || p.RatePerS != 0.5 {
		t.Errorf("bad input changed the policy: %+v", p)
	}
}

// doJSON sends a JSON body with any method and returns the status and body.
func (s *testServer) doJSON(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	status, b, _ := s.do(t, method, path, "application/json", body)
	return status, b
}

// limiters is another instance's view of the server's limiters (same Redis, Redis TIME).
func (s *testServer) limiters(t *testing.T) *limiters.Limiters {
	return openRepo(t, s.rdb).Limiters
}
