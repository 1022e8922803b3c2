package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

// signIn signs the test server's client in with token and returns the session cookie.
func (s *testServer) signIn(t *testing.T, token string) *http.Cookie {
	t.Helper()
	status, body, h := s.postForm(t, "/login", "/login", url.Values{"token": {token}, "next": {"/"}})
	if status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %.300s", status, body)
	}
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == sessionCookie {
			return ck
		}
	}
	t.Fatal("sign-in set no session cookie")
	return nil
}

// withCookie returns a copy of s whose client holds only ck (and a fresh CSRF cookie).
func (s *testServer) withCookie(t *testing.T, ck *http.Cookie) *testServer {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.URL)
	if ck != nil {
		jar.SetCookies(u, []*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/"}})
	}
	c := *s
	client := *s.client
	client.Jar = jar
	c.client = &client
	return &c
}

// canChange says whether the client may use a mutating form: it adds a point on board b.
func (s *testServer) canChange(t *testing.T) bool {
	t.Helper()
	status, _, h := s.postForm(t, "/login", "/boards/b/points", url.Values{"player": {"p"}, "points": {"1"}})
	switch {
	case status == http.StatusSeeOther && strings.HasPrefix(h.Get("Location"), "/login"):
		return false
	case status == http.StatusSeeOther:
		return true
	}
	t.Fatalf("form: unexpected %d", status)
	return false
}

// The sign-in limit is built in: after Redis lost every key (FLUSHDB: the test's database is all
// its Redis; FLUSHALL would empty the other tests'), 15 wrong sign-ins still meet it,
// and once met even the right token is refused.
func TestSignInLimitSurvivesFlushAll(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	if err := s.rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	limited := 0
	for i := range 15 {
		status, page, h := s.postForm(t, "/login", "/login", url.Values{"token": {fmt.Sprintf("guess-%d", i)}})
		switch {
		case i < int(domain.SignInAttempts.Limit) && status != http.StatusUnauthorized:
			t.Fatalf("attempt %d: %d, want 401", i+1, status)
		case i >= int(domain.SignInAttempts.Limit):
			if status != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(page, "Too many sign-in attempts") {
				t.Fatalf("attempt %d: %d Retry-After %q, want 429", i+1, status, h.Get("Retry-After"))
			}
			limited++
		}
	}
	if limited != 5 {
		t.Errorf("%d attempts limited, want 5", limited)
	}
	if status, _, _ := s.postForm(t, "/login", "/login", url.Values{"token": {"s3cret"}}); status != http.StatusTooManyRequests {
		t.Errorf("right token past the limit: %d, want 429 (the limit must not tell a right guess)", status)
	}
}

// Wrong bearer tokens are guesses too: they meet the same limit, on reads as on writes, and
// then even the right token waits.
func TestWrongBearerTokensMeetTheLimit(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	var status int
	var h http.Header
	var body string
	for i := range 100 {
		path := "/api/v1/boards/b/scores"
		if i%2 == 1 {
			path = "/api/v1/locks"
		}
		method := map[bool]string{true: http.MethodPost, false: http.MethodGet}[i%2 == 0]
		status, body, h = s.do(t, method, path, "application/json", `{"player":"a","points":1}`, "Authorization", fmt.Sprintf("Bearer guess-%d", i))
		if status == http.StatusTooManyRequests {
			break
		}
		if status != http.StatusUnauthorized || !strings.Contains(body, `"code":"unauthorized"`) {
			t.Fatalf("guess %d: %d %s, want 401", i+1, status, body)
		}
	}
	if status != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, `"code":"rate_limited"`) {
		t.Fatalf("100 wrong bearer tokens: last %d %s Retry-After %q, want 429", status, body, h.Get("Retry-After"))
	}
	if status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`, "Authorization", "Bearer s3cret"); status != http.StatusTooManyRequests {
		t.Errorf("right token from a limited address: %d, want 429", status)
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("refused calls wrote %v", k)
	}
}

// A right bearer token is not an attempt: an API client that holds it is not limited.
func TestRightBearerTokenIsNotCounted(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	for i := range 3 * domain.SignInAttempts.Limit {
		if status, b := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`, "Authorization", "Bearer s3cret"); status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i+1, status, b)
		}
	}
}

// The scheme is case-insensitive (RFC 9110): "bearer" and "BEARER" are "Bearer".
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	for _, scheme := range []string{"bearer", "BEARER", "BeArEr"} {
		if status, b := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`, "Authorization", scheme+" s3cret"); status != http.StatusOK {
			t.Errorf("%s: %d %s", scheme, status, b)
		}
	}
}

// When the limit cannot be checked (Redis stopped), sign-in and bearer tokens are refused
// with a 503 that says why, never let through.
func TestSignInFailsClosedWithoutRedis(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb, err := redisrepo.Connect("redis://" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	s := newTestServer(t, "s3cret", rdb)
	_, page := s.get(t, "/login") // for the CSRF cookie, while Redis answers
	csrf := csrfInput.FindStringSubmatch(page)[1]
	srv.Stop()

	form := url.Values{"token": {"s3cret"}, "_csrf": {csrf}}
	status, body, h := s.do(t, http.MethodPost, "/login", "application/x-www-form-urlencoded", form.Encode())
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "Sign-in is refused while Redis is unavailable") {
		t.Errorf("sign-in without Redis: %d %.300s, want 503 with the reason", status, body)
	}
	for _, ck := range (&http.Response{Header: h}).Cookies() {
		if ck.Name == sessionCookie && ck.Value != "" {
			t.Error("a session cookie was set without Redis")
		}
	}
	status, body = s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`, "Authorization", "Bearer s3cret")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "cannot be checked") {
		t.Errorf("bearer without Redis: %d %s, want 503", status, body)
	}
}

// Signing out ends the session in Redis: a copy of the cookie kept from before changes
// nothing.
func TestCookieKeptFromBeforeSignOut(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	kept := s.signIn(t, "s3cret")
	if !s.withCookie(t, kept).canChange(t) {
		t.Fatal("the fresh session cannot change data")
	}
	if status, _, _ := s.postForm(t, "/", "/logout", url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", status)
	}
	s.rdb.Del(context.Background(), "leaderboard:b")
	if s.withCookie(t, kept).canChange(t) {
		t.Error("a cookie kept from before sign-out still changes data")
	}
	if n := s.rdb.Exists(context.Background(), "leaderboard:b").Val(); n != 0 {
		t.Error("the kept cookie wrote to the board")
	}
	if _, body := s.withCookie(t, kept).get(t, "/"); strings.Contains(body, "sign out") {
		t.Error("the kept cookie is shown as signed in")
	}
}

// Sign out everywhere ends every admin session, other browsers' too; a new sign-in works.
func TestSignOutEverywhere(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	other := s.withCookie(t, nil)
	otherCookie := other.signIn(t, "s3cret")
	mine := s.signIn(t, "s3cret")
	if !s.withCookie(t, mine).canChange(t) || !s.withCookie(t, otherCookie).canChange(t) {
		t.Fatal("fresh sessions cannot change data")
	}
	if status, _, _ := s.postForm(t, "/", "/logout/everywhere", url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d", status)
	}
	if s.withCookie(t, otherCookie).canChange(t) || s.withCookie(t, mine).canChange(t) {
		t.Error("a session outlived sign out everywhere")
	}
	if !s.withCookie(t, s.signIn(t, "s3cret")).canChange(t) {
		t.Error("a new sign-in after sign out everywhere does not work")
	}
	// Anonymous browsers cannot end the admins' sessions.
	anon := s.withCookie(t, nil)
	admin := s.withCookie(t, s.signIn(t, "s3cret"))
	if status, _, h := anon.postForm(t, "/login", "/logout/everywhere", url.Values{}); status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Errorf("anonymous sign out everywhere: %d %s", status, h.Get("Location"))
	}
	if !admin.canChange(t) {
		t.Error("an anonymous request ended the admin's session")
	}
}

// A session cookie that was never issued, or was issued under another admin token, is not a
// session.
func TestForgedAndStaleSessions(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	ck := s.signIn(t, "s3cret")
	if s.withCookie(t, &http.Cookie{Name: sessionCookie, Value: "made-up"}).canChange(t) {
		t.Error("a made-up session id changes data")
	}
	other := newTestServerWith(t, "another-token", s.rdb, nil) // same Redis, token changed
	if other.withCookie(t, ck).canChange(t) {
		t.Error("a session opened with the old admin token outlived the token")
	}
	if ttl := s.rdb.PTTL(context.Background(), redisrepo.DefaultKeys.Session(sessionKeyHash(ck.Value))).Val(); ttl <= 0 || ttl > sessionTTL {
		t.Errorf("session record PTTL %v, want within %v", ttl, sessionTTL)
	}
	if n := len(s.rdb.Keys(context.Background(), "*"+ck.Value+"*").Val()); n != 0 {
		t.Error("the session id is readable in a key name")
	}
}

// The CSRF token is read from the form body or the X-CSRF-Token header, never the query.
func TestCSRFTokenNotFromQuery(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	_, page := s.get(t, "/boards/b")
	token := csrfInput.FindStringSubmatch(page)[1]
	form := url.Values{"player": {"p"}, "points": {"1"}}
	status, _, _ := s.do(t, http.MethodPost, "/boards/b/points", "application/x-www-form-urlencoded", form.Encode())
	if status != http.StatusForbidden {
		t.Errorf("no CSRF token: %d, want 403", status)
	}
	_, body, _ := s.do(t, http.MethodPost, "/boards/b/points", "application/x-www-form-urlencoded", form.Encode())
	if !strings.Contains(body, "This form could not be checked") || strings.Contains(body, "csrf token") {
		t.Error("a missing CSRF token is told in echo's words, not for people")
	}
	status, _, _ = s.do(t, http.MethodPost, "/boards/b/points?_csrf="+url.QueryEscape(token), "application/x-www-form-urlencoded", form.Encode())
	if status != http.StatusForbidden {
		t.Errorf("_csrf in the query: %d, want 403", status)
	}
	if n := s.rdb.Exists(context.Background(), "leaderboard:b").Val(); n != 0 {
		t.Error("a form with the token in the query wrote")
	}
	if status, _, _ := s.do(t, http.MethodPost, "/boards/b/points", "application/x-www-form-urlencoded", form.Encode(), "X-CSRF-Token", token); status != http.StatusSeeOther {
		t.Errorf("token in the header: %d, want 303", status)
	}
}

// With an admin token, lock holders' tokens are withheld from anyone but admins: the API,
// the pages and the live list say the lock exists and hide who holds it.
func TestLockTokensHiddenFromAnonymousReaders(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	ctx := context.Background()
	s.rdb.Set(ctx, "lock:order:1", "holder-secret-token", time.Minute)
	if err := s.svc.Discovery.Refresh(ctx); err != nil { // as its cadence would: another service's lock
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/locks", "/api/v1/locks/order:1", "/locks", "/locks/order:1/force-release"} {
		status, body := s.get(t, path)
		if status != http.StatusOK || strings.Contains(body, "holder-secret-token") || !strings.Contains(body, "order:1") {
			t.Errorf("anonymous %s: %d, token shown or lock missing: %.400s", path, status, body)
		}
		if strings.HasPrefix(path, "/api/") && !strings.Contains(body, `"token_hidden":true`) {
			t.Errorf("anonymous %s does not say the token is hidden: %s", path, body)
		}
	}
	for _, path := range []string{"/api/v1/locks", "/api/v1/locks/order:1"} {
		status, body, _ := s.do(t, http.MethodGet, path, "", "", "Authorization", "Bearer s3cret")
		if status != http.StatusOK || !strings.Contains(body, "holder-secret-token") {
			t.Errorf("admin %s: %d %s, want the token", path, status, body)
		}
	}
	admin := s.withCookie(t, s.signIn(t, "s3cret"))
	if _, body := admin.get(t, "/locks/order:1/force-release"); !strings.Contains(body, "holder-secret-token") {
		t.Error("the admin's force-release page does not show the holder")
	}
	frag, err := TopicRenderer(bigKey, redisrepo.DefaultKeys.Display(), "")(domain.TopicLocks, domain.Anonymous(0, "s3cret"), domain.HeldLocks{Locks: []domain.LockInfo{{Lock: "order:1", Token: "holder-secret-token", Type: "string"}}})
	if err != nil || strings.Contains(string(frag), "holder-secret-token") || !strings.Contains(string(frag), "hidden") {
		t.Errorf("live fragment with an admin token: %v %s", err, frag)
	}
	// Without an admin token everyone is an admin: tokens are shown.
	open := newTestServer(t, "", s.rdb)
	if _, body := open.get(t, "/api/v1/locks/order:1"); !strings.Contains(body, "holder-secret-token") {
		t.Errorf("open access hides the token: %s", body)
	}
}

// sessionKeyHash is how redisrepo names a session: the SHA-256 of its id.
func sessionKeyHash(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// The API takes bearer tokens only: an admin's session cookie does not change data through it.
func TestAPIIgnoresSessionCookies(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	s.signIn(t, "s3cret") // the client's jar now holds the session
	if status, b := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`); status != http.StatusUnauthorized {
		t.Errorf("API write with a session cookie: %d %s, want 401", status, b)
	}
}

// attemptGate is a go-redis hook that holds every script on a sign-in attempt counter until
// opened, then lets them through one at a time in the order they arrived: the order Redis
// would see them in if they all came at one instant, made repeatable.
type attemptGate struct {
	mu      sync.Mutex
	queue   []chan struct{}
	open    bool
	busy    bool
	arrived int
}

func (g *attemptGate) DialHook(next redis.DialHook) redis.DialHook { return next }
func (g *attemptGate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (g *attemptGate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !strings.Contains(fmt.Sprint(cmd.Args()...), "sign-in:") {
			return next(ctx, cmd)
		}
		turn := make(chan struct{})
		g.mu.Lock()
		g.queue, g.arrived = append(g.queue, turn), g.arrived+1
		g.next()
		g.mu.Unlock()
		<-turn
		defer func() { g.mu.Lock(); g.busy = false; g.next(); g.mu.Unlock() }()
		return next(ctx, cmd)
	}
}

// next lets the first waiting script go when the gate is open and none is running (g.mu held).
func (g *attemptGate) next() {
	if g.open && !g.busy && len(g.queue) > 0 {
		g.busy = true
		close(g.queue[0])
		g.queue = g.queue[1:]
	}
}

// A burst of guesses cannot pass the limit: 99 wrong tokens and then the right one, all in
// flight at once, reach Redis in that order; the right one comes after the limit was used
// up, so it is refused like the 89 wrong ones past the limit.
func TestGuessBurstMeetsTheLimit(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	gate := &attemptGate{}
	rdb.AddHook(gate)
	s := newTestServer(t, "s3cret", rdb)
	// Load the scripts first, so no NOSCRIPT retry reorders the burst.
	gate.mu.Lock()
	gate.open = true
	gate.mu.Unlock()
	if status, _, _ := s.do(t, http.MethodGet, "/api/v1/locks", "", "", "Authorization", "Bearer s3cret"); status != http.StatusOK {
		t.Fatalf("warm-up: %d", status)
	}
	gate.mu.Lock()
	gate.open, gate.arrived = false, 0
	gate.mu.Unlock()

	const burst = 100
	statuses := make([]int, burst)
	var wg sync.WaitGroup
	send := func(i int, token string) {
		wg.Go(func() {
			statuses[i], _, _ = s.do(t, http.MethodGet, "/api/v1/locks", "", "", "Authorization", "Bearer "+token)
		})
	}
	waitArrived := func(n int) {
		if err := redistest.Poll(10*time.Second, func() error {
			gate.mu.Lock()
			defer gate.mu.Unlock()
			if gate.arrived < n {
				return fmt.Errorf("%d of %d requests reached Redis", gate.arrived, n)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range burst - 1 {
		send(i, fmt.Sprintf("guess-%d", i))
	}
	waitArrived(burst - 1)
	send(burst-1, "s3cret")
	waitArrived(burst)
	gate.mu.Lock()
	gate.open = true
	gate.next()
	gate.mu.Unlock()
	wg.Wait()

	count := map[int]int{}
	for _, st := range statuses {
		count[st]++
	}
	if count[http.StatusUnauthorized] != int(domain.SignInAttempts.Limit) || statuses[burst-1] != http.StatusTooManyRequests {
		t.Errorf("answers %v, the right token after the burst %d: want %d × 401, the rest (the right token too) 429",
			count, statuses[burst-1], domain.SignInAttempts.Limit)
	}
}

// Without an admin token, changes are accepted from loopback only unless --open-access: a
// client elsewhere (here, behind a trusted proxy) gets 403 naming the flags, on the API and
// on forms; a request a proxy forwarded without --trust-proxy is not taken for a local one.
func TestOpenAccessIsLoopbackOnlyByDefault(t *testing.T) {
	t.Parallel()
	add := func(s *testServer, header ...string) (int, string) {
		return s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`, header...)
	}
	local := newTestServerWith(t, "", nil, trustProxy)
	if status, body := add(local); status != http.StatusOK {
		t.Errorf("from loopback: %d %s", status, body)
	}
	status, body := add(local, "X-Forwarded-For", "203.0.113.1")
	if status != http.StatusForbidden || !strings.Contains(body, "--open-access") || !strings.Contains(body, "--admin-token") {
		t.Errorf("from 203.0.113.1: %d %s, want 403 naming the flags", status, body)
	}
	if status, body, h := local.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"a"}, "points": {"1"}},
		"X-Forwarded-For", "203.0.113.1"); status != http.StatusForbidden || h.Get("Location") != "" || !strings.Contains(body, "--open-access") {
		t.Errorf("form from 203.0.113.1: %d Location %q, want 403 (nothing to sign in to)", status, h.Get("Location"))
	}
	if _, page := local.get(t, "/"); !strings.Contains(page, `Full access<span class="max-sm:sr-only"> from this machine; other addresses read only`) {
		t.Error("the header does not say access is open to loopback only")
	}
	if _, page, _ := local.do(t, http.MethodGet, "/", "", "", "X-Forwarded-For", "203.0.113.1"); !strings.Contains(page, `Read-only<span class="max-sm:sr-only"> from this address: changes are accepted from this machine only`) {
		t.Error("the header does not tell another address it reads only")
	}
	direct := newTestServer(t, "", nil)
	if status, _ := add(direct, "X-Forwarded-For", "203.0.113.1"); status != http.StatusForbidden {
		t.Errorf("forwarded by a proxy zpulse does not trust: %d, want 403", status)
	}

	open := newTestServerWith(t, "", nil, func(d *Deps) { trustProxy(d); d.OpenAccess = true })
	if status, body := add(open, "X-Forwarded-For", "203.0.113.1"); status != http.StatusOK {
		t.Errorf("--open-access, from 203.0.113.1: %d %s", status, body)
	}
	if _, page := open.get(t, "/"); !strings.Contains(page, `>Open access<span class="max-sm:sr-only">: anyone who reaches this page can change data</span></span>`) {
		t.Error("--open-access: the header does not say access is open")
	}
}

// The sign-in page says where the session lives: in Redis, not in a signed cookie.
func TestLoginPageSaysWhereSessionsLive(t *testing.T) {
	s := newTestServer(t, "secret-token-1234", nil)
	_, page := s.get(t, "/login")
	if !strings.Contains(page, "a session kept in Redis") || strings.Contains(page, "signed cookie") {
		t.Error("the sign-in page does not say that the session is kept in Redis")
	}
}
