package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, func(start time.Time) { testNow = start }) }

// testNow is where the tests' manual clocks start: the first whole minute after the test
// server's clock (redistest.Main), so what a test dates is a date Redis agrees with.
var testNow time.Time

// bigKey is the test servers' big-key threshold: small, so tests can cross it.
const bigKey = 5

type testServer struct {
	*httptest.Server
	rdb     redis.UniversalClient
	watcher *live.Watcher
	queues  *queues.Queues
	svc     *redisrepo.Services
	client  *http.Client // keeps cookies, does not follow redirects
}

// newTestServer serves zpulse's handler over the package's real Redis (flushed), or over
// rdb when one is given (e.g. a client of a Redis that is down).
func newTestServer(t testing.TB, adminToken string, rdb redis.UniversalClient) *testServer {
	t.Helper()
	return newTestServerWith(t, adminToken, rdb, nil)
}

// newTestServerWith is newTestServer with Deps adjusted by tweak (e.g. an API rate limit).
func newTestServerWith(t testing.TB, adminToken string, rdb redis.UniversalClient, tweak func(*Deps)) *testServer {
	t.Helper()
	if rdb == nil {
		rdb = redistest.DB(t)
	}
	w := newTestWiring(t, rdb, adminToken)
	if tweak != nil {
		tweak(&w.deps)
	}
	return serveWiring(t, rdb, w)
}

// serveWiring serves w's handler over a test HTTP server, stopped when the test ends.
func serveWiring(t testing.TB, rdb redis.UniversalClient, w testWiring) *testServer {
	t.Helper()
	s := serveDeps(t, rdb, w.deps)
	s.watcher, s.queues, s.svc = w.watcher, w.svc.Queues, w.svc
	return s
}

// serveDeps serves the handler of d over a test HTTP server, stopped when the test ends.
func serveDeps(t testing.TB, rdb redis.UniversalClient, d Deps) *testServer {
	t.Helper()
	srv := httptest.NewServer(NewServer(d))
	t.Cleanup(func() { d.Hub.Close(); srv.Close() }) // websockets first: Close waits for them
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: time.Minute, // a hang guard: a burst of 100 requests beside stress-ng took over 10 s
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     contractTransport{t: t, base: d.BasePath, next: http.DefaultTransport}}
	return &testServer{Server: srv, rdb: rdb, client: client}
}

// testWiring is the HTTP layer's dependencies over a test Redis, and the parts tests look at.
type testWiring struct {
	deps    Deps
	watcher *live.Watcher
	svc     *redisrepo.Services
}

// newTestWiring builds the services over rdb as cmd/web's run does, with the test servers'
// settings (a small big-key threshold, a fast watcher that does not run by itself). It is
// the one place the tests wire services; it stops what it started when the test ends.
func newTestWiring(t testing.TB, rdb redis.UniversalClient, adminToken string, opts ...wiringOptions) testWiring {
	t.Helper()
	var opt wiringOptions
	if len(opts) > 0 {
		opt = opts[0]
	}
	reg := prometheus.NewRegistry()
	metrics := live.NewMetrics(reg)
	hub := live.NewHub(metrics)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// With no manual clock the services run on the test server's clock, which is the machine's
	// unless `make test-dates` moved Redis to another date.
	var clock domain.Clock = redistest.ServerClock{}
	if opt.clock != nil {
		clock = opt.clock
	}
	svc := openRepoWith(t, redisrepo.OpenOptions{Client: rdb, TakePool: 4, Clock: clock, Completed: opt.completed})
	render := TopicRenderer(bigKey, svc.Keys, "")
	if opt.rendered != nil {
		next := render
		render = func(topic string, aud domain.Audience, snap any) ([]byte, error) {
			opt.rendered(topic)
			return next(topic, aud, snap)
		}
	}
	watcher := live.NewWatcher(svc.Snapshots.Read, render, hub, 50*time.Millisecond, log, metrics,
		live.WithSame(panels.Same), live.WithRouter(svc.Snapshots.Rooms()), live.WithMode(opt.mode), live.WithNotice(svc.Notice))
	if !opt.quiet {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { svc.Run(ctx); close(done) }()
		t.Cleanup(func() { stop(); <-done })
	}
	return testWiring{
		deps: Deps{
			Leaderboards: svc.Leaderboards, Queues: svc.Queues, Limiters: svc.Limiters, FlushLimiterChecks: svc.Limiters.Flush, Locks: svc.Locks, Auth: svc.Auth, Tokens: svc.Auth, History: svc.History,
			Sources: svc.Sources, IndexNotes: svc.IndexNotes, Trail: svc.Audit, Schedules: svc.Schedules,
			Hub: hub, Watcher: watcher, Registry: reg, Log: log, Ping: svc.Ping, Health: svc.Health, Keys: svc.Keys,
			AdminToken: adminToken, BigKey: bigKey,
		},
		watcher: watcher,
		svc:     svc,
	}
}

// wiringOptions adjust newTestWiring: a manual clock for the services and the session
// cookies, a hook told of every fragment the watcher renders (so, publishes).
type wiringOptions struct {
	clock    domain.Clock
	rendered func(topic string)
	mode     func() domain.LiveMode // the live mode the watcher pushes (live.WithMode); nil: none
	// completed is the completed jobs kept (--completed-keep and the rest); zero: the default
	completed domain.CompletedPolicy
	// quiet leaves the services' background loops (discovery, flushes) stopped, so that
	// Redis and the Go heap see only what the test's requests do
	quiet bool
}

// openRepo builds the services over rdb with the production wiring (redisrepo.Open); clock
// is nil for Redis TIME, as in production, or a test's manual clock.
func openRepo(t testing.TB, rdb redis.UniversalClient, clock ...domain.Clock) *redisrepo.Services {
	t.Helper()
	opt := redisrepo.OpenOptions{Client: rdb, TakePool: 4}
	if len(clock) > 0 {
		opt.Clock = clock[0]
	}
	return openRepoWith(t, opt)
}

// openRepoWith is openRepo with every option given.
func openRepoWith(t testing.TB, opt redisrepo.OpenOptions) *redisrepo.Services {
	t.Helper()
	svc, err := redisrepo.Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// do sends a request and returns the status and body.
func (s *testServer) do(t *testing.T, method, path, contentType, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func (s *testServer) postJSON(t *testing.T, path, body string, header ...string) (int, string) {
	t.Helper()
	status, b, _ := s.do(t, http.MethodPost, path, "application/json", body, header...)
	return status, b
}

func (s *testServer) get(t *testing.T, path string) (int, string) {
	t.Helper()
	status, b, _ := s.do(t, http.MethodGet, path, "", "")
	return status, b
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]*)"`)

// postForm loads page for its CSRF token (and cookie), then posts the form to path.
func (s *testServer) postForm(t *testing.T, page, path string, form url.Values, header ...string) (int, string, http.Header) {
	t.Helper()
	_, body := s.get(t, page)
	m := csrfInput.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on %s", page)
	}
	form.Set("_csrf", m[1])
	return s.do(t, http.MethodPost, path, "application/x-www-form-urlencoded", form.Encode(), header...)
}

// keys lists every key in Redis except zpulse's own (index, settings, unique counts), on every
// master of a Cluster (a keyless command on a cluster client reaches one node only).
func keys(t *testing.T, rdb redis.UniversalClient) []string {
	t.Helper()
	ctx := context.Background()
	var (
		mu  sync.Mutex
		out []string
	)
	sweep := func(ctx context.Context, node redis.UniversalClient) error {
		iter := node.Scan(ctx, 0, "*", 1000).Iterator()
		for iter.Next(ctx) {
			if k := iter.Val(); !strings.HasPrefix(k, redisrepo.DefaultKeys.OwnPrefix) {
				mu.Lock()
				out = append(out, k)
				mu.Unlock()
			}
		}
		return iter.Err()
	}
	var err error
	if c, ok := rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return sweep(ctx, m) })
	} else {
		err = sweep(ctx, rdb)
	}
	if err != nil {
		t.Fatalf("list keys: %v", err)
	}
	slices.Sort(out)
	return out
}

// waitSubscriptions waits until ok holds, checked each time a live connection subscribes to hub
// or leaves it (Hub.WaitSubscriptions): how a test waits for the connections it opened to be
// registered. The 5 s are a guard against a hang, not a synchronisation.
func waitSubscriptions(t testing.TB, hub *live.Hub, ok func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hub.WaitSubscriptions(ctx, ok); err != nil {
		t.Fatal(err)
	}
}

// waitTopics waits until n topics of hub have subscribers.
func waitTopics(t testing.TB, hub *live.Hub, n int) {
	t.Helper()
	waitSubscriptions(t, hub, func() bool { return len(hub.Topics()) >= n })
}

func redisZ(score float64, member string) redis.Z { return redis.Z{Score: score, Member: member} }

// regexpFind returns the first group of pattern in s, failing the test when there is none.
func regexpFind(t *testing.T, s, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no match for %s", pattern)
	}
	return m[1]
}

// renderCounter counts the fragments a watcher renders (so publishes), by topic.
type renderCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *renderCounter) add(topic string) {
	r.mu.Lock()
	r.n[topic]++
	r.mu.Unlock()
}

// take returns the counts since the last take, and counts from zero again.
func (r *renderCounter) take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.n
	r.n = map[string]int{}
	return out
}

// countingServer is a test server over rdb, its services on clock, whose watcher's renders
// are counted: for tests of what a tick publishes (Tick is driven by hand).
func countingServer(t *testing.T, rdb redis.UniversalClient, clock domain.Clock) (testWiring, *httptest.Server, *renderCounter) {
	t.Helper()
	published := &renderCounter{n: map[string]int{}}
	w := newTestWiring(t, rdb, "", wiringOptions{clock: clock, rendered: published.add})
	srv := httptest.NewServer(NewServer(w.deps))
	t.Cleanup(func() { w.deps.Hub.Close(); srv.Close() })
	return w, srv, published
}
