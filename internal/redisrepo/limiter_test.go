package redisrepo

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// t0 is a window boundary for every window the tests use (a multiple of 10 s).
var t0 = time.UnixMilli(1_800_000_000_000)

func newTestLimiters(t *testing.T) (*Limiters, *redis.Client, *domain.ManualClock) {
	svc, rdb, clock := newLimiterServices(t)
	return svc.Limiters, rdb, clock
}

// newLimiterServices is newTestLimiters with every service of the same wiring (discovery, snapshots).
func newLimiterServices(t *testing.T) (*Services, *redis.Client, *domain.ManualClock) {
	rdb := redistest.Client(t)
	svc, clock := newLimiterServicesOn(t, rdb)
	return svc, rdb, clock
}

// newLimiterServicesOn is newLimiterServices on a given client (a topology of
// redistest.ForEachTopology).
func newLimiterServicesOn(t *testing.T, rdb redis.UniversalClient) (*Services, *domain.ManualClock) {
	clock := domain.NewManualClock(t0)
	return openTest(t, rdb, clock), clock
}

// policies100 are the four algorithms at 100 requests a second.
func policies100(prefix string) []domain.LimitPolicy {
	return []domain.LimitPolicy{
		{Name: prefix + "log", Algorithm: domain.SlidingLog, Limit: 100, WindowMs: 1000},
		{Name: prefix + "fixed", Algorithm: domain.FixedWindow, Limit: 100, WindowMs: 1000},
		{Name: prefix + "counter", Algorithm: domain.SlidingCounter, Limit: 100, WindowMs: 1000},
		{Name: prefix + "bucket", Algorithm: domain.TokenBucket, RatePerS: 100, Burst: 100},
	}
}

func mustAllow(t *testing.T, l *Limiters, limiter, client string) domain.LimitResult {
	t.Helper()
	res, err := l.Allow(context.Background(), limiter, client)
	if err != nil {
		t.Fatalf("Allow(%s, %s): %v", limiter, client, err)
	}
	return res
}

// The article's test: limit 3 per 10 s (the policy "default" before anyone edits it).
// c-42 gets true, true, true, false; c-99 true; once the window slid, c-42 is allowed again.
// On one server and on the Cluster.
func TestSlidingLogArticleTest(t *testing.T) { redistest.ForEachTopology(t, testSlidingLogArticleTest) }

func testSlidingLogArticleTest(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := newLimiterServicesOn(t, rdb)
	l := svc.Limiters
	ctx := context.Background()
	var got []bool
	for range 4 {
		got = append(got, mustAllow(t, l, "default", "c-42").Allowed)
	}
	if fmt.Sprint(got) != "[true true true false]" {
		t.Fatalf("c-42: %v, want [true true true false]", got)
	}
	if !mustAllow(t, l, "default", "c-99").Allowed {
		t.Error("c-99 was rejected: limits must be per client")
	}
	// The article's key and encoding: rate:c-42, score = request ms, member = a random UUID;
	// the rejected request added nothing.
	z := rdb.ZRangeWithScores(ctx, "rate:c-42", 0, -1).Val()
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if len(z) != 3 {
		t.Fatalf("rate:c-42 holds %d requests, want 3", len(z))
	}
	for _, e := range z {
		if e.Score != float64(t0.UnixMilli()) || !uuid.MatchString(e.Member.(string)) {
			t.Errorf("entry %v: want score %d and a random UUID member", e, t0.UnixMilli())
		}
	}
	if ttl := rdb.PTTL(ctx, "rate:c-42").Val(); ttl <= 9*time.Second || ttl > 10*time.Second {
		t.Errorf("PTTL rate:c-42 = %v, want the window, 10s", ttl)
	}
	rejected, _ := l.Allow(ctx, "default", "c-42")
	if rejected.Remaining != 0 || rejected.RetryAfterMs != 10_000 || rejected.ResetMs != 10_000 || rejected.Limit != 3 {
		t.Errorf("rejected answer = %+v, want remaining 0, retry and reset after 10 s", rejected)
	}
	clock.Advance(9999 * time.Millisecond)
	if mustAllow(t, l, "default", "c-42").Allowed {
		t.Error("c-42 allowed 1 ms before its requests left the window")
	}
	clock.Advance(time.Millisecond)
	res := mustAllow(t, l, "default", "c-42")
	if !res.Allowed || res.Remaining != 2 || res.RetryAfterMs != 0 || res.ResetMs != 10_000 {
		t.Errorf("after the window slid: %+v, want allowed with 2 remaining", res)
	}
	if n := rdb.ZCard(ctx, "rate:c-42").Val(); n != 1 {
		t.Errorf("ZCARD rate:c-42 = %d, want 1 (the old requests removed)", n)
	}
}

// The article's own script, run straight in Redis on rate:c-77, and zpulse's "default"
// policy count the same requests, in both directions.
func TestSlidingLogSharesTheArticlesKeys(t *testing.T) {
	l, rdb, clock := newTestLimiters(t)
	ctx := context.Background()
	const article = `
local key    = KEYS[1]
local now    = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit  = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
if redis.call('ZCARD', key) < limit then
    redis.call('ZADD', key, now, ARGV[4])
    redis.call('PEXPIRE', key, window)
    return 1
end
return 0`
	articleAcquire := func() int64 {
		t.Helper()
		n, err := rdb.Eval(ctx, article, []string{"rate:c-77"}, clock.Now().UnixMilli(), 10_000, 3, newUUID()).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The service admits two; zpulse sees them and admits one more, then refuses.
	articleAcquire()
	clock.Advance(time.Second)
	articleAcquire()
	if p, _ := l.Peek(ctx, "default", "c-77"); p.Remaining != 1 || p.ResetMs != 10_000 || !p.Allowed {
		t.Errorf("Peek after the service's two requests = %+v, want 1 remaining", p)
	}
	if r := mustAllow(t, l, "default", "c-77"); !r.Allowed || r.Remaining != 0 || r.RetryAfterMs != 9000 {
		t.Errorf("zpulse's third request = %+v, want allowed, 0 remaining, retry in 9 s", r)
	}
	if mustAllow(t, l, "default", "c-77").Allowed || articleAcquire() != 0 {
		t.Error("a fourth request was admitted")
	}
	// The other way: zpulse admits three, the service's script refuses the fourth.
	rdb.Del(ctx, "rate:c-77")
	for range 3 {
		mustAllow(t, l, "default", "c-77")
	}
	if articleAcquire() != 0 {
		t.Error("the article's script admitted a 4th request after zpulse's three")
	}
	clock.Advance(10 * time.Second)
	if articleAcquire() != 1 || mustAllow(t, l, "default", "c-77").Remaining != 1 {
		t.Error("after the window both should see the same fresh window")
	}
}

// Each algorithm's own rules, with a moved clock. On one server and on the Cluster.
func TestAlgorithmsWithAMovedClock(t *testing.T) {
	redistest.ForEachTopology(t, testAlgorithmsWithAMovedClock)
}

func testAlgorithmsWithAMovedClock(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := newLimiterServicesOn(t, rdb)
	l := svc.Limiters
	ctx := context.Background()
	for _, p := range []domain.LimitPolicy{
		{Name: "fixed", Algorithm: domain.FixedWindow, Limit: 2, WindowMs: 10_000},
		{Name: "counter", Algorithm: domain.SlidingCounter, Limit: 4, WindowMs: 10_000},
		{Name: "bucket", Algorithm: domain.TokenBucket, RatePerS: 0.5, Burst: 2},
	} {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// Fixed window: 2 per aligned 10 s window; the count lives in one hash beside its window.
	clock.Set(t0.Add(3 * time.Second))
	a, b, c := mustAllow(t, l, "fixed", "x"), mustAllow(t, l, "fixed", "x"), mustAllow(t, l, "fixed", "x")
	if !a.Allowed || !b.Allowed || c.Allowed || c.RetryAfterMs != 7000 || c.ResetMs != 7000 || b.Remaining != 0 {
		t.Errorf("fixed window: %+v %+v %+v", a, b, c)
	}
	if f := rdb.HGetAll(ctx, "rate:fw:fixed:{x}").Val(); f["n"] != "2" || f["w"] != fmt.Sprint(t0.UnixMilli()) {
		t.Errorf("rate:fw:fixed:{x} = %v, want n 2 (the rejected one not counted) and w the window start", f)
	}
	clock.Set(t0.Add(10 * time.Second))
	if r := mustAllow(t, l, "fixed", "x"); !r.Allowed || r.Remaining != 1 {
		t.Errorf("fixed window, next window: %+v", r)
	}

	// Sliding counter: 4 per 10 s; the previous window weighs by its overlap.
	clock.Set(t0.Add(9 * time.Second))
	for range 4 {
		mustAllow(t, l, "counter", "x")
	}
	if r := mustAllow(t, l, "counter", "x"); r.Allowed {
		t.Errorf("counter: a 5th request in the window was allowed: %+v", r)
	}
	clock.Set(t0.Add(12_500 * time.Millisecond)) // previous 4 weigh 0.75: 3, one left
	r1, r2 := mustAllow(t, l, "counter", "x"), mustAllow(t, l, "counter", "x")
	if !r1.Allowed || r1.Remaining != 0 || r2.Allowed || r2.RetryAfterMs != 2500 {
		t.Errorf("counter at 25%% of the next window: %+v %+v; want one allowed, then retry once the previous weighs 2 (at 50%%, in 2.5 s)", r1, r2)
	}
	if r := rdb.HGetAll(ctx, "rate:swc:counter:{x}").Val(); r["c"] != "1" || r["p"] != "4" {
		t.Errorf("rate:swc:counter:{x} = %v", r)
	}

	// Token bucket: burst 2, one token every 2 s.
	clock.Set(t0)
	mustAllow(t, l, "bucket", "x")
	mustAllow(t, l, "bucket", "x")
	if r := mustAllow(t, l, "bucket", "x"); r.Allowed || r.RetryAfterMs != 2000 || r.ResetMs != 4000 {
		t.Errorf("empty bucket: %+v, want rejected, a token in 2 s, full in 4 s", r)
	}
	clock.Advance(1999 * time.Millisecond)
	if mustAllow(t, l, "bucket", "x").Allowed {
		t.Error("bucket: allowed before a token was back")
	}
	clock.Advance(time.Millisecond)
	if r := mustAllow(t, l, "bucket", "x"); !r.Allowed || r.Remaining != 0 {
		t.Errorf("bucket after 2 s: %+v", r)
	}
	if tokens := rdb.HGet(ctx, "rate:tb:bucket:{x}", "tokens").Val(); tokens != "0" {
		t.Errorf("tokens = %q, want 0", tokens)
	}
	clock.Advance(time.Hour)
	if r := mustAllow(t, l, "bucket", "x"); r.Remaining != 1 {
		t.Errorf("bucket after an hour: %+v, want refilled to the burst only (2, one taken)", r)
	}
}

// Peek answers what Allow would without counting anything.
func TestPeekWritesNothing(t *testing.T) {
	l, rdb, _ := newTestLimiters(t)
	ctx := context.Background()
	for _, p := range policies100("") {
		l.SetPolicy(ctx, p)
		mustAllow(t, l, p.Name, "c")
		before := rdb.Dump(ctx, l.keys.LimiterState(p, "c")).Val()
		for range 3 {
			if r, err := l.Peek(ctx, p.Name, "c"); err != nil || r.Remaining != 99 || !r.Allowed {
				t.Errorf("%s: Peek = %+v, %v; want 99 remaining", p.Name, r, err)
			}
		}
		if after := rdb.Dump(ctx, l.keys.LimiterState(p, "c")).Val(); after != before {
			t.Errorf("%s: Peek changed the state", p.Name)
		}
		if _, err := l.Peek(ctx, p.Name, "new"); err != nil || rdb.Exists(ctx, l.keys.LimiterState(p, "new")).Val() != 0 {
			t.Errorf("%s: Peek of a new client wrote its key (%v)", p.Name, err)
		}
	}
}

// 16 goroutines × 1,000 checks against 100 a second, with the time from Redis TIME: no window
// of any algorithm admits more than it promises, checked from the recorded admissions.
func TestConcurrentChecksKeepTheirPromise(t *testing.T) {
	rdb := redistest.Client(t)
	l := openTest(t, rdb, nil).Limiters // Redis TIME
	ctx := context.Background()
	for _, p := range policies100("") {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			t.Fatal(err)
		}
		t.Run(string(p.Algorithm), func(t *testing.T) {
			const workers, checks = 16, 1000
			var (
				mu       sync.Mutex
				admitted []int64
				rejected int
				wg       sync.WaitGroup
			)
			errs := make(chan error, workers)
			for range workers {
				wg.Go(func() {
					for range checks {
						r, err := l.Allow(ctx, p.Name, "hot")
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						if r.Allowed {
							admitted = append(admitted, r.AtMs)
						} else {
							rejected++
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			slices.Sort(admitted)
			span := admitted[len(admitted)-1] - admitted[0]
			t.Logf("%s: %d admitted, %d rejected over %d ms", p.Algorithm, len(admitted), rejected, span)
			if len(admitted) < 100 || rejected == 0 || len(admitted)+rejected != workers*checks {
				t.Fatalf("admitted %d, rejected %d: the test did not push the limit", len(admitted), rejected)
			}
			if v := promiseViolation(p, admitted); v != "" {
				t.Error(v)
			}
		})
	}
}

// promiseViolation checks admission times (epoch ms, sorted) against what the policy
// promises, and describes the first breach.
func promiseViolation(p domain.LimitPolicy, at []int64) string {
	perWindow := func() string {
		counts := map[int64]int64{}
		for _, t := range at {
			counts[t/p.WindowMs]++
		}
		for w, n := range counts {
			if n > p.Limit {
				return fmt.Sprintf("%d admitted in the fixed window starting at %d, limit %d", n, w*p.WindowMs, p.Limit)
			}
		}
		return ""
	}
	switch p.Algorithm {
	case domain.SlidingLog: // any window (t-W, t] holds at most Limit
		for i := 0; i+int(p.Limit) < len(at); i++ {
			if at[i+int(p.Limit)]-at[i] < p.WindowMs {
				return fmt.Sprintf("%d admitted between %d and %d, less than the window %d ms apart", p.Limit+1, at[i], at[i+int(p.Limit)], p.WindowMs)
			}
		}
	case domain.FixedWindow:
		return perWindow()
	case domain.SlidingCounter: // every admission kept previous×weight + current ≤ limit
		if v := perWindow(); v != "" {
			return v
		}
		counts := map[int64]float64{}
		for _, t := range at {
			counts[t/p.WindowMs]++
		}
		for i, t := range at {
			if i+1 < len(at) && at[i+1] == t {
				continue // check the last admission of each ms, which saw all the others
			}
			w := t / p.WindowMs
			var cur float64
			for _, u := range at[:i+1] {
				if u/p.WindowMs == w {
					cur++
				}
			}
			weight := float64(p.WindowMs-(t-w*p.WindowMs)) / float64(p.WindowMs)
			if est := counts[w-1]*weight + cur; est > float64(p.Limit)+1e-9 {
				return fmt.Sprintf("at %d the estimate with the admitted request is %.3f, over %d", t, est, p.Limit)
			}
		}
	case domain.TokenBucket: // any interval [a, b] holds at most burst + rate×(b−a)
		for i := range at {
			for j := i; j < len(at); j++ {
				if n, most := float64(j-i+1), float64(p.Burst)+p.RatePerS*float64(at[j]-at[i])/1000; n > most+1e-9 {
					return fmt.Sprintf("%v admitted between %d and %d, at most %.2f allowed", n, at[i], at[j], most)
				}
			}
		}
	}
	return ""
}

// The fixed window's weakness, shown: the limit at the end of one window and again at the
// start of the next, 200 requests in 20 ms against 100 a second. The sliding log admits none
// of the second burst; the counter and the bucket admit what they promise.
func TestBoundaryBurst(t *testing.T) {
	l, _, clock := newTestLimiters(t)
	ctx := context.Background()
	secondBurst := map[domain.Algorithm]int{}
	for _, p := range policies100("") {
		l.SetPolicy(ctx, p)
		var at []int64
		clock.Set(t0.Add(990 * time.Millisecond)) // 10 ms before a boundary
		burst := func() (n int) {
			for range 100 {
				if r := mustAllow(t, l, p.Name, "b"); r.Allowed {
					at = append(at, r.AtMs)
					n++
				}
			}
			return n
		}
		if n := burst(); n != 100 {
			t.Fatalf("%s: first burst admitted %d, want 100", p.Name, n)
		}
		clock.Advance(20 * time.Millisecond) // 10 ms after it
		secondBurst[p.Algorithm] = burst()
		v := promiseViolation(domain.LimitPolicy{Algorithm: domain.SlidingLog, Limit: 100, WindowMs: 1000}, at)
		if p.Algorithm == domain.FixedWindow && v == "" {
			t.Errorf("fixed window: no double burst across the boundary")
		}
		if p.Algorithm == domain.SlidingLog && v != "" {
			t.Errorf("sliding log: %s", v)
		}
		if v := promiseViolation(p, at); v != "" {
			t.Errorf("%s broke its own promise: %s", p.Name, v)
		}
	}
	want := map[domain.Algorithm]int{domain.FixedWindow: 100, domain.SlidingLog: 0, domain.SlidingCounter: 1, domain.TokenBucket: 2}
	if fmt.Sprint(secondBurst) != fmt.Sprint(want) {
		t.Errorf("second burst admitted %v, want %v", secondBurst, want)
	}
}

func TestPolicies(t *testing.T) { redistest.ForEachTopology(t, testPolicies) }

func testPolicies(t *testing.T, rdb redis.UniversalClient) {
	svc, _ := newLimiterServicesOn(t, rdb)
	l := svc.Limiters
	ctx := context.Background()
	if p, err := l.Policy(ctx, "default"); err != nil || p != domain.DefaultPolicy {
		t.Errorf("default before any save = %+v, %v", p, err)
	}
	if _, err := l.Policy(ctx, "api"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("unknown policy: %v", err)
	}
	if _, err := l.Allow(ctx, "api", "c"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("Allow under an unknown policy: %v", err)
	}
	p, err := l.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.TokenBucket, RatePerS: 2.5, Burst: 10, Limit: 7})
	if err != nil || p.Limit != 0 || p.RatePerS != 2.5 {
		t.Fatalf("SetPolicy = %+v, %v (unused fields must be cleared)", p, err)
	}
	// Another instance reads the same policy from Redis.
	other := openTest(t, rdb, nil).Limiters
	if got, err := other.Policy(ctx, "api"); err != nil || got != p {
		t.Errorf("other instance: %+v, %v", got, err)
	}
	all, _ := other.Policies(ctx)
	if len(all) != 2 || all[0].Name != "api" || all[1] != domain.DefaultPolicy {
		t.Errorf("Policies = %+v", all)
	}
	for _, bad := range []domain.LimitPolicy{
		{Name: "default", Algorithm: domain.FixedWindow, Limit: 1, WindowMs: 1000},
		{Name: "x", Algorithm: "leaky", Limit: 1, WindowMs: 1000},
		{Name: "x", Algorithm: domain.SlidingLog, Limit: 0, WindowMs: 1000},
		{Name: "x", Algorithm: domain.SlidingLog, Limit: 1, WindowMs: 5},
		{Name: "x", Algorithm: domain.TokenBucket, RatePerS: 0, Burst: 1},
		{Name: "x", Algorithm: domain.TokenBucket, RatePerS: 1, Burst: 0},
		{Name: "x{y}", Algorithm: domain.SlidingLog, Limit: 1, WindowMs: 1000},
		{Name: "a b", Algorithm: domain.SlidingLog, Limit: 1, WindowMs: 1000},
	} {
		if _, err := l.SetPolicy(ctx, bad); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("SetPolicy(%+v) = %v, want EINVALID", bad, err)
		}
	}
	if _, err := l.Allow(ctx, "default", strings.Repeat("x", 65)); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("65-byte client: %v", err)
	}
	if _, err := l.Allow(ctx, "default", "a{b}"); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "braces mark the client") {
		t.Errorf("client with braces: %v", err)
	}
}

// The page's numbers, computed in Go from the state, agree with the scripts' Peek.
func TestViewAgreesWithPeek(t *testing.T) {
	l, rdb, clock := newTestLimiters(t)
	ctx := context.Background()
	policies := []domain.LimitPolicy{
		{Name: "log", Algorithm: domain.SlidingLog, Limit: 5, WindowMs: 10_000},
		{Name: "fixed", Algorithm: domain.FixedWindow, Limit: 5, WindowMs: 10_000},
		{Name: "counter", Algorithm: domain.SlidingCounter, Limit: 5, WindowMs: 10_000},
		{Name: "bucket", Algorithm: domain.TokenBucket, RatePerS: 0.7, Burst: 5},
	}
	compared := 0
	for _, p := range policies {
		l.SetPolicy(ctx, p)
		clock.Set(t0.Add(8 * time.Second))
		for i := range 9 {
			mustAllow(t, l, p.Name, "c")
			clock.Advance(time.Duration(300+i*400) * time.Millisecond)
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for _, step := range []time.Duration{0, 700 * time.Millisecond, 3 * time.Second, 6 * time.Second} {
			clock.Advance(step)
			peek, err := l.Peek(ctx, p.Name, "c")
			if err != nil {
				t.Fatal(err)
			}
			view, err := l.View(ctx, p.Name)
			if err != nil {
				t.Fatal(err)
			}
			if len(view.Clients) != 1 {
				if peek.Remaining == peek.Limit {
					continue // idle: not active any more
				}
				t.Fatalf("%s: view has clients %+v", p.Name, view.Clients)
			}
			u := view.Clients[0]
			compared++
			if u.Remaining != peek.Remaining || u.Used != u.Limit-u.Remaining && p.Algorithm != domain.SlidingCounter ||
				u.RetryAfterMs != ceilSecond(peek.RetryAfterMs) || u.ResetMs != ceilSecond(peek.ResetMs) {
				t.Errorf("%s at +%v: view %+v, peek %+v", p.Name, clock.Now().Sub(t0), u, peek)
			}
		}
	}
	if compared < 12 {
		t.Errorf("compared %d views with Peek, want at least 12", compared)
	}
	if k := rdb.Keys(ctx, "zpulse:limiter:{log}:events:c").Val(); len(k) != 1 {
		t.Errorf("events list missing: %v", k)
	}
}

// The view lists zpulse's clients and those other services wrote, with their timelines and
// the per-second counts.
func TestViewAndDiscovery(t *testing.T) {
	svc, rdb, clock := newLimiterServices(t)
	l := svc.Limiters
	ctx := context.Background()
	for range 5 {
		mustAllow(t, l, "default", "c-42")
	}
	// Another service's client, on the article's key.
	rdb.ZAdd(ctx, "rate:c-77", redis.Z{Score: float64(t0.UnixMilli() - 2000), Member: "u1"}, redis.Z{Score: float64(t0.UnixMilli() - 1000), Member: "u2"})
	rdb.ZAdd(ctx, "rate:c-old", redis.Z{Score: float64(t0.UnixMilli() - 3_600_000), Member: "u1"})
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	view, err := l.View(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Clients) != 2 || view.Clients[0].Client != "c-42" || view.Clients[1].Client != "c-77" {
		t.Fatalf("clients = %+v, want c-42 and c-77 (c-old is idle)", view.Clients)
	}
	c42, c77 := view.Clients[0], view.Clients[1]
	if c42.Used != 3 || c42.Remaining != 0 || !c42.Full() || len(c42.Events) != 5 || c42.ResetMs != 10_000 {
		t.Errorf("c-42 = %+v, want 3 used of 3 and 5 events (3 allowed, 2 rejected)", c42)
	}
	var allowed int
	for _, e := range c42.Events {
		if e.Allowed {
			allowed++
		}
	}
	if allowed != 3 {
		t.Errorf("c-42 events %+v, want 3 allowed", c42.Events)
	}
	if c77.Used != 2 || c77.Remaining != 1 || len(c77.Events) != 2 {
		t.Errorf("c-77 = %+v", c77)
	}
	if len(view.Seconds) != 1 || view.Seconds[0] != (domain.SecondCount{Sec: t0.Unix(), Allowed: 3, Rejected: 2}) {
		t.Errorf("seconds = %+v", view.Seconds)
	}
	if view.NowMs != t0.UnixMilli() || !view.Exists || view.Policy != domain.DefaultPolicy {
		t.Errorf("view = %+v", view)
	}
	// Eleven seconds later everything has left the window; the chart too, after a minute.
	clock.Advance(11 * time.Second)
	if v, _ := l.View(ctx, "default"); len(v.Clients) != 0 || len(v.Seconds) != 1 {
		t.Errorf("after the window: %+v", v)
	}
	clock.Advance(time.Minute)
	if v, _ := l.View(ctx, "default"); v.NowMs != 0 || len(v.Seconds) != 0 {
		t.Errorf("idle view = %+v, want NowMs 0 so it stops changing", v)
	}
	if v, err := l.View(ctx, "nothing"); err != nil || v.Exists {
		t.Errorf("unknown limiter view = %+v, %v", v, err)
	}
}

// The live path reads a limiter in the same single round trip as every other topic.
func TestSnapshotsReadLimiterTopics(t *testing.T) {
	l, rdb, clock := newTestLimiters(t)
	ctx := context.Background()
	mustAllow(t, l, "default", "c-1")
	l.Flush(ctx)
	s := newSnapshots(rdb, DefaultKeys, newDiscovery(rdb, DefaultKeys), clocks{script: clock})
	topics := []string{domain.LimiterTopic("default"), domain.BoardTopic("b", domain.AllTime, domain.BoardTopN)}
	snaps, err := s.Read(ctx, topics)
	if _, ok := snaps[topics[0]]; err != nil || ok {
		t.Fatalf("first read: %v %v, want the limiter left out", snaps, err)
	}
	hook := &countingHook{}
	rdb.AddHook(hook)
	snaps, err = s.Read(ctx, topics)
	if err != nil || hook.pipelines != 1 || hook.single != 0 {
		t.Fatalf("second read: %v; %d pipelines, %d single calls", err, hook.pipelines, hook.single)
	}
	view := snaps[topics[0]].(domain.LimiterView)
	if len(view.Clients) != 1 || view.Clients[0].Used != 1 {
		t.Errorf("live view = %+v", view)
	}
	again, _ := s.Read(ctx, topics)
	if fmt.Sprint(again[topics[0]]) != fmt.Sprint(view) {
		t.Errorf("unchanged state gave a different snapshot")
	}
}

// Every script runs on miniredis too (the embedded Redis of `make run`), with the time from
// its TIME, which zpulse keeps setting.
func TestScriptsRunOnMiniredis(t *testing.T) {
	m := miniredis.RunT(t)
	m.SetTime(t0)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()
	svc := openTest(t, rdb, nil)
	l := svc.Limiters
	ctx := context.Background()
	for _, p := range append(policies100(""), domain.DefaultPolicy) {
		if p.Name != "default" {
			if _, err := l.SetPolicy(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		for range p.Quota() + 1 {
			if r := mustAllow(t, l, p.Name, "m"); r.Allowed {
				n++
			} else if r.AtMs != t0.UnixMilli() {
				t.Errorf("%s: decided at %d, want miniredis's TIME %d", p.Name, r.AtMs, t0.UnixMilli())
			}
		}
		if n != int(p.Quota()) {
			t.Errorf("%s on miniredis: %d admitted, want %d", p.Name, n, p.Quota())
		}
		if _, err := l.Peek(ctx, p.Name, "m"); err != nil {
			t.Error(err)
		}
	}
	m.SetTime(t0.Add(10 * time.Second))
	if r := mustAllow(t, l, "default", "m"); !r.Allowed {
		t.Error("miniredis: the window did not slide with its clock")
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := l.View(ctx, "default"); err != nil || len(v.Clients) != 1 || v.Clients[0].Used != 1 {
		t.Errorf("view on miniredis: %+v, %v", v, err)
	}
}
