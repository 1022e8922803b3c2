package limiters

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/compat"
	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// t0 is a window boundary for every window the tests use (a multiple of 10 s).
var t0 = time.UnixMilli(1_800_000_000_000)

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
func TestSlidingLogArticleTest(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testSlidingLogArticleTest)
}

func testSlidingLogArticleTest(t *testing.T, rdb redis.UniversalClient) {
	l, _, clock := newLimitersOn(rdb)
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
	t.Parallel()
	l, rdb, clock := newTestLimiters(t)
	ctx := context.Background()
	articleAcquire := func() int64 {
		t.Helper()
		n, err := compat.SlidingWindow.Run(ctx, rdb, []string{"rate:c-77"}, clock.Now().UnixMilli(), 10_000, 3, NewUUID()).Int64()
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
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testAlgorithmsWithAMovedClock)
}

func testAlgorithmsWithAMovedClock(t *testing.T, rdb redis.UniversalClient) {
	l, _, clock := newLimitersOn(rdb)
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
	t.Parallel()
	l, rdb, _ := newTestLimiters(t)
	ctx := context.Background()
	for _, p := range policies100("") {
		if p.Algorithm == domain.TokenBucket {
			// A bucket's key lives until it would be full again, in Redis's real time while
			// the test's clock stands still: at 100 tokens a second that is 11 ms, which a
			// busy machine outlasts between two calls. A slow refill keeps it for the test.
			p.RatePerS = 0.001
		}
		l.SetPolicy(ctx, p)
		mustAllow(t, l, p.Name, "c")
		before := rdb.Dump(ctx, l.Keys.LimiterState(p, "c")).Val()
		for range 3 {
			if r, err := l.Peek(ctx, p.Name, "c"); err != nil || r.Remaining != 99 || !r.Allowed {
				t.Errorf("%s: Peek = %+v, %v; want 99 remaining", p.Name, r, err)
			}
		}
		if after := rdb.Dump(ctx, l.Keys.LimiterState(p, "c")).Val(); after != before {
			t.Errorf("%s: Peek changed the state", p.Name)
		}
		if _, err := l.Peek(ctx, p.Name, "new"); err != nil || rdb.Exists(ctx, l.Keys.LimiterState(p, "new")).Val() != 0 {
			t.Errorf("%s: Peek of a new client wrote its key (%v)", p.Name, err)
		}
	}
}

func TestPolicies(t *testing.T) { t.Parallel(); redistest.ForEachTopologyParallel(t, testPolicies) }

func testPolicies(t *testing.T, rdb redis.UniversalClient) {
	l, _, _ := newLimitersOn(rdb)
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
	other, _ := openLimiters(rdb, nil)
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

func testDeleteLimiterPolicy(t *testing.T, rdb redis.UniversalClient) {
	l, _ := openLimiters(rdb, nil)
	ctx := context.Background()
	for _, name := range []string{domain.DefaultLimiter, domain.SignInAttempts.Name} {
		if err := l.DeletePolicy(ctx, name); domain.ErrorCode(err) != domain.ECONFLICT {
			t.Errorf("delete %s: %v; want ECONFLICT", name, err)
		}
	}
	if _, err := l.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.FixedWindow, Limit: 5, WindowMs: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Allow(ctx, "api", "ana"); err != nil {
		t.Fatal(err)
	}
	if err := l.DeletePolicy(ctx, "api"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Allow(ctx, "api", "ana"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("allow after delete: %v", err)
	}
	if err := l.DeletePolicy(ctx, "api"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("delete again: %v", err)
	}
	if ps, _ := l.Policies(ctx); len(ps) != 1 || ps[0].Name != domain.DefaultLimiter {
		t.Errorf("policies: %+v", ps)
	}
}

func TestDeleteLimiterPolicy(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testDeleteLimiterPolicy)
}

// zpulse's own limiters refuse a key of another type at a client's state, whatever the
// algorithm, and leave it as it is.
func TestLimiterRefusesAKeyOfAnotherType(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testLimiterRefusesAKeyOfAnotherType)
}

func testLimiterRefusesAKeyOfAnotherType(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	l, _, _ := newLimitersOn(rdb)
	for _, p := range policies100("t-") {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	policies := append(policies100("t-"), domain.LimitPolicy{Name: domain.DefaultLimiter, Algorithm: domain.SlidingLog})
	for _, p := range policies {
		key := store.DefaultKeys.LimiterState(p, "c")
		want := "zset"
		if p.Algorithm == domain.SlidingLog {
			rdb.Set(ctx, key, "someone's", 0)
			want = "string"
		} else {
			rdb.ZAdd(ctx, key, redis.Z{Score: 1, Member: "m"})
		}
		for _, check := range []func(context.Context, string, string) (domain.LimitResult, error){l.Allow, l.Peek} {
			_, err := check(ctx, p.Name, "c")
			if domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(domain.ErrorMessage(err), "holds a "+want) {
				t.Errorf("%s on a %s: %v, want wrong_type", p.Name, want, err)
			}
		}
		if typ := rdb.Type(ctx, key).Val(); typ != want || rdb.PTTL(ctx, key).Val() != -time.Nanosecond {
			t.Errorf("%s: %s is now a %s with ttl %v", p.Name, key, typ, rdb.PTTL(ctx, key).Val())
		}
	}
}
