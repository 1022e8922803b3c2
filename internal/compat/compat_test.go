package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// start is where the suite's clocks begin: 2026-07-25 10:00:00 UTC, a day of the second
// article's example, and a whole minute (a fixed window's start).
var start = time.Date(2026, 7, 25, 10, 0, 0, 0, time.UTC)

// setup puts zpulse's services on rdb (through redisrepo.Open, the production wiring) with a
// manual clock, the same clock the articles' services are given.
func setup(t *testing.T, rdb redis.UniversalClient) (*redisrepo.Services, *domain.ManualClock) {
	t.Helper()
	clock := domain.NewManualClock(start)
	svc, err := redisrepo.Open(context.Background(), redisrepo.OpenOptions{Client: rdb, Clock: clock, TakePool: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, clock
}

// get unwraps a (value, error) answer: get(f())(t) fails the test on an error.
func get[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// noErr fails the test on an error.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func zpulseOrder(t *testing.T, svc *redisrepo.Services, board string) string {
	t.Helper()
	top := get(svc.Leaderboards.Top(context.Background(), board, domain.AllTime, 100))(t)
	var parts []string
	for _, e := range top.Entries {
		parts = append(parts, fmt.Sprintf("%s=%d", e.Player, e.Score))
	}
	return strings.Join(parts, " ")
}

// Main article, leaderboard without tie-break: the article's example through its service is
// zpulse's board, and what zpulse adds the article's top and rankOf see.
func TestLeaderboardBothWays(t *testing.T) { redistest.ForEachTopology(t, testLeaderboardBothWays) }

func testLeaderboardBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, _ := setup(t, rdb)
	ctx := context.Background()
	lb := Leaderboard{RDB: rdb, Key: "leaderboard:game:2048"}
	for _, a := range []struct {
		p string
		n float64
	}{{"alice", 120}, {"bob", 95}, {"carol", 150}, {"bob", 60}} {
		get(lb.AddPoints(ctx, a.p, a.n))(t)
	}
	if got := zpulseOrder(t, svc, "game:2048"); got != "bob=155 carol=150 alice=120" {
		t.Errorf("zpulse shows %s, want the article's bob=155 carol=150 alice=120", got)
	}
	get(svc.Leaderboards.AddPoints(ctx, "game:2048", "alice", 40))(t)
	top := get(lb.Top(ctx, 3))(t)
	if len(top) != 3 || top[0] != (PlayerScore{"alice", 160}) {
		t.Errorf("the article's top after zpulse's add = %v", top)
	}
	if r, ok, _ := lb.RankOf(ctx, "alice"); !ok || r != 1 {
		t.Errorf("rankOf(alice) = %d %v", r, ok)
	}
}

// Three players reaching 100 points 30 ms apart through zpulse rank in arrival order, and a
// board where the article's addPointsWithTieBreak and zpulse both write ties ranks by real
// time, whichever wrote.
func TestTieBreakBothWays(t *testing.T) { redistest.ForEachTopology(t, testTieBreakBothWays) }

func testTieBreakBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	get(svc.Leaderboards.UpdateSettings(ctx, "g", domain.BoardSettings{TieBreak: domain.TieBreakFirstReached, RetentionDays: 1}))(t)
	for _, p := range []string{"abe", "mia", "zed"} { // Redis alone would rank these ties zed, mia, abe
		get(svc.Leaderboards.AddPoints(ctx, "g", p, 100))(t)
		clock.Advance(30 * time.Millisecond)
	}
	if got := zpulseOrder(t, svc, "g"); got != "abe=100 mia=100 zed=100" {
		t.Errorf("30 ms apart through zpulse: %s, want arrival order abe mia zed", got)
	}

	lb := Leaderboard{RDB: rdb, Key: "leaderboard:g"}
	// Interleave: the article's service and zpulse take turns reaching 200, 30 ms apart.
	writers := []string{"article", "zpulse", "article", "zpulse"}
	for i, w := range writers {
		player := fmt.Sprintf("p%d-%s", i, w)
		if w == "article" {
			get(lb.AddPointsWithTieBreak(ctx, player, 200, clock.Now().UnixMilli()))(t)
		} else {
			get(svc.Leaderboards.SetScore(ctx, "g", player, 200))(t)
		}
		clock.Advance(30 * time.Millisecond)
	}
	want := "p0-article=200 p1-zpulse=200 p2-article=200 p3-zpulse=200 abe=100 mia=100 zed=100"
	if got := zpulseOrder(t, svc, "g"); got != want {
		t.Errorf("mixed writers: zpulse shows %s\nwant %s", got, want)
	}
	top := get(lb.Top(ctx, 4))(t)
	for i, ps := range top {
		if !strings.HasPrefix(ps.Player, fmt.Sprintf("p%d-", i)) || RealPoints(ps.Score) != 200 {
			t.Errorf("the article's top[%d] = %+v (floor %d)", i, ps, RealPoints(ps.Score))
		}
	}
	// An increment through zpulse re-encodes the time: the article's floor still shows points.
	get(svc.Leaderboards.AddPoints(ctx, "g", "zed", 5))(t)
	if s := rdb.ZScore(ctx, "leaderboard:g", "zed").Val(); RealPoints(s) != 105 {
		t.Errorf("zed's score %v floors to %d, want 105", s, RealPoints(s))
	}
}

// Main article, priority queue: its producer's jobs come out of zpulse's poll by priority;
// zpulse's jobs come out of its consumer's poll (ZPOPMIN) and take (BZPOPMIN).
func TestPriorityQueueBothWays(t *testing.T) { redistest.ForEachTopology(t, testPriorityQueueBothWays) }

func testPriorityQueueBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	q := JobQueue{RDB: rdb, Key: "queue:email-jobs"}
	noErr(t, q.Enqueue(ctx, "newsletter", 5, clock.Now().UnixMilli()))
	clock.Advance(time.Millisecond)
	noErr(t, q.Enqueue(ctx, "password-reset", 0, clock.Now().UnixMilli()))
	for _, want := range []string{"password-reset", "newsletter"} {
		d, ok := get2(svc.Queues.Poll(ctx, "email-jobs", domain.PollOptions{}))(t)
		if !ok || d.ID != want {
			t.Errorf("zpulse polled %+v, want %s", d, want)
		}
	}
	for i, p := range []int{7, 1} {
		get(svc.Queues.Enqueue(ctx, "email-jobs", domain.NewJob{ID: fmt.Sprint("z", i), Priority: p, HasPriority: true}))(t)
	}
	if id, ok, _ := q.Poll(ctx); !ok || id != "z1" {
		t.Errorf("the article's poll = %q, want z1 (priority 1)", id)
	}
	if id, ok, _ := q.Take(ctx, time.Second); !ok || id != "z0" {
		t.Errorf("the article's take = %q, want z0", id)
	}
}

// get2 is get for a (value, value, error) answer.
func get2[A, B any](a A, b B, err error) func(*testing.T) (A, B) {
	return func(t *testing.T) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}

// Main article, delayed queue with POP_DUE: never early, in either direction.
func TestDelayedQueueBothWays(t *testing.T) { redistest.ForEachTopology(t, testDelayedQueueBothWays) }

func testDelayedQueueBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	dq := DelayedJobQueue{RDB: rdb, Key: "queue:delayed"}
	noErr(t, dq.Schedule(ctx, "reminder", clock.Now().Add(30*time.Minute)))
	if _, ok := get2(svc.Queues.Poll(ctx, "delayed", domain.PollOptions{}))(t); ok {
		t.Error("zpulse took a job before its run-at")
	}
	clock.Advance(30 * time.Minute)
	if d, ok := get2(svc.Queues.Poll(ctx, "delayed", domain.PollOptions{}))(t); !ok || d.ID != "reminder" {
		t.Errorf("zpulse at run-at: %+v", d)
	}
	get(svc.Queues.Enqueue(ctx, "delayed", domain.NewJob{ID: "z", Delay: time.Minute}))(t)
	if _, ok, _ := dq.PollDue(ctx, clock.Now()); ok {
		t.Error("the article's POP_DUE took zpulse's job early")
	}
	if id, ok, _ := dq.PollDue(ctx, clock.Now().Add(time.Minute)); !ok || id != "z" {
		t.Errorf("the article's POP_DUE at run-at = %q %v", id, ok)
	}
}

// Main article, sliding log: its service and zpulse's default policy count the same requests
// on rate:<client>, both ways (the article's test: 3 per 10 s).
func TestSlidingLogBothWays(t *testing.T) { redistest.ForEachTopology(t, testSlidingLogBothWays) }

func testSlidingLogBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	n := 0
	lim := SlidingWindowRateLimiter{RDB: rdb, Now: func() int64 { return clock.Now().UnixMilli() }, ID: func() string { n++; return fmt.Sprint("uuid-", n) }}
	for range 2 {
		if ok, _ := lim.TryAcquire(ctx, "c-42", 3, 10*time.Second); !ok {
			t.Fatal("the article refused within its limit")
		}
	}
	if r := get(svc.Limiters.Allow(ctx, domain.DefaultLimiter, "c-42"))(t); !r.Allowed || r.Remaining != 0 {
		t.Errorf("zpulse after the article's 2: %+v, want the third and last", r)
	}
	if ok, _ := lim.TryAcquire(ctx, "c-42", 3, 10*time.Second); ok {
		t.Error("the article admitted a fourth: it did not see zpulse's request")
	}
	clock.Advance(10 * time.Second)
	if r := get(svc.Limiters.Allow(ctx, domain.DefaultLimiter, "c-42"))(t); !r.Allowed {
		t.Error("zpulse refused after the window slid")
	}
}

// A foreign ZPOPMIN plus a re-add of the same id never receives the old payload, and the
// orphaned payload is gone after the grace period.
func TestForeignConsumerNeverGetsTheOldPayload(t *testing.T) {
	redistest.ForEachTopology(t, testForeignConsumerNeverGetsTheOldPayload)
}

func testForeignConsumerNeverGetsTheOldPayload(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	get(svc.Queues.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "j", Priority: 2, HasPriority: true, Payload: json.RawMessage(`{"to":"old"}`)}))(t)
	q := JobQueue{RDB: rdb, Key: "queue:email-jobs"}
	if id, ok, _ := q.Poll(ctx); !ok || id != "j" {
		t.Fatalf("the article's poll = %q", id)
	}
	clock.Advance(time.Millisecond)
	noErr(t, q.Enqueue(ctx, "j", 2, clock.Now().UnixMilli()))
	d, ok := get2(svc.Queues.Poll(ctx, "email-jobs", domain.PollOptions{Lease: time.Minute}))(t)
	if !ok || d.ID != "j" || d.Payload != nil {
		t.Errorf("zpulse delivered %+v with payload %s, want the new j without the old payload", d, d.Payload)
	}
	noErr(t, svc.Queues.Ack(ctx, "email-jobs", "j", d.Token))
	// Another one taken by the article and never re-added: an orphan, counted, then removed.
	get(svc.Queues.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "k", Priority: 2, HasPriority: true, Payload: json.RawMessage(`{"to":"k"}`)}))(t)
	q.Poll(ctx)
	get2(svc.Queues.Reap(ctx, 1))(t)
	if v := get(svc.Queues.View(ctx, "email-jobs"))(t); v.Orphans != 1 {
		t.Errorf("orphans on the page = %d, want 1", v.Orphans)
	}
	clock.Advance(domain.OrphanGrace)
	get2(svc.Queues.Reap(ctx, 1))(t)
	if n := rdb.Exists(ctx, "{queue:email-jobs}:jobs").Val(); n != 0 {
		t.Errorf("payloads left after the grace period: %v", rdb.HGetAll(ctx, "{queue:email-jobs}:jobs").Val())
	}
}

// Second article, boards at game:rank:<yyyymmdd> with its points × 10^10 + (max_ts − ts):
// adopted, today's board shows live in zpulse with true points in time order; and a zpulse
// board in the same encoding reads right with the article's integer division.
func TestSecondArticleBoardsBothWays(t *testing.T) {
	redistest.ForEachTopology(t, testSecondArticleBoardsBothWays)
}

func testSecondArticleBoardsBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	get(svc.Sources.SaveSource(ctx, domain.Source{Name: "daily", Kind: domain.SourceBoard, Key: "game:rank:{yyyymmdd}", Encoding: string(domain.TieBreakFirstReachedE10)}))(t)
	d := DailyRank{RDB: rdb, Prefix: "game:rank:"}
	noErr(t, d.SetTieBreak(ctx, clock.Now(), "user:1002", 50, clock.Now()))
	get(0, d.SetTieBreak(ctx, clock.Now(), "user:1001", 50, clock.Now().Add(-time.Second)))(t) // reached 50 first
	noErr(t, d.SetTieBreak(ctx, clock.Now(), "user:1003", 70, clock.Now()))
	v := get(svc.Sources.SourceView(ctx, "daily"))(t)
	var got []string
	for _, e := range v.Entries {
		got = append(got, fmt.Sprintf("%s=%d", e.Player, e.Score))
	}
	if v.Key != "game:rank:20260725" || strings.Join(got, " ") != "user:1003=70 user:1001=50 user:1002=50" {
		t.Errorf("adopted board %s shows %v", v.Key, got)
	}
	get(svc.Leaderboards.UpdateSettings(ctx, "e10", domain.BoardSettings{TieBreak: domain.TieBreakFirstReachedE10, RetentionDays: 1}))(t)
	get(svc.Leaderboards.AddPoints(ctx, "e10", "a", 40))(t)
	clock.Advance(time.Second)
	get(svc.Leaderboards.AddPoints(ctx, "e10", "b", 40))(t)
	zs := get(rdb.ZRevRangeWithScores(ctx, "leaderboard:e10", 0, -1).Result())(t)
	if len(zs) != 2 || zs[0].Member != "a" || E10Points(zs[0].Score) != 40 || E10Points(zs[1].Score) != 40 {
		t.Errorf("the article reads zpulse's e10 board as %v", zs)
	}
}

// Second article, fixed window at limit:api:<client>:<window start>: adopted, the page shows
// the service's counters (found by discovery), and zpulse's try counts on the same key.
func TestFixedWindowBothWays(t *testing.T) { redistest.ForEachTopology(t, testFixedWindowBothWays) }

func testFixedWindowBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	get(svc.Sources.SaveSource(ctx, domain.Source{Name: "api", Kind: domain.SourceLimiter, Key: "limit:api:{client}:{window_start}", Encoding: domain.SourceFixedWindow, Limit: 3, WindowMs: 60_000}))(t)
	fw := FixedWindow{RDB: rdb, Limit: 3, Window: time.Minute}
	for range 2 {
		get(fw.Allow(ctx, "user1001", clock.Now()))(t)
	}
	noErr(t, svc.Discovery.Refresh(ctx))
	v := get(svc.Sources.SourceView(ctx, "api"))(t)
	if len(v.Clients) != 1 || v.Clients[0].Client != "user1001" || v.Clients[0].Count != 2 || v.Clients[0].Key != fw.Key("user1001", clock.Now()) {
		t.Errorf("adopted fixed window shows %+v", v.Clients)
	}
	snaps := get(svc.Snapshots.Read(ctx, []string{domain.SourceTopic("api")}, live.Poll{}))(t) // the live panel's read
	if live, ok := snaps[domain.SourceTopic("api")].(domain.SourceView); !ok || len(live.Clients) != 1 || live.Clients[0].Count != 2 {
		t.Errorf("live topic = %+v", snaps)
	}
	if r := get(svc.Sources.TrySource(ctx, "api", "user1001"))(t); !r.Allowed || r.Remaining != 0 {
		t.Errorf("zpulse's try = %+v, want the third and last", r)
	}
	if ok, _ := fw.Allow(ctx, "user1001", clock.Now()); ok {
		t.Error("the article admitted a fourth: it did not see zpulse's try")
	}
	if ttl := rdb.TTL(ctx, fw.Key("user1001", clock.Now())).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the counter's TTL = %v, want the window's", ttl)
	}
	clock.Advance(time.Minute)
	if r := get(svc.Sources.TrySource(ctx, "api", "user1001"))(t); !r.Allowed {
		t.Error("a new window must admit again")
	}
}

// Second article, token bucket: a service's bucket and zpulse's token_bucket policy on one
// hash take from the same tokens, both ways.
func TestTokenBucketBothWays(t *testing.T) { redistest.ForEachTopology(t, testTokenBucketBothWays) }

func testTokenBucketBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	get(svc.Limiters.SetPolicy(ctx, domain.LimitPolicy{Name: "tb", Algorithm: domain.TokenBucket, RatePerS: 1, Burst: 3}))(t)
	b := TokenBucket{RDB: rdb, Key: redisrepo.DefaultKeys.LimiterState(domain.LimitPolicy{Name: "tb", Algorithm: domain.TokenBucket}, "c"), RatePerMs: 0.001, Capacity: 3}
	for range 2 {
		if ok, _ := b.Allow(ctx, clock.Now()); !ok {
			t.Fatal("the article's bucket refused a full bucket")
		}
	}
	if r := get(svc.Limiters.Allow(ctx, "tb", "c"))(t); !r.Allowed || r.Remaining != 0 {
		t.Errorf("zpulse after the article took 2 of 3: %+v", r)
	}
	if ok, _ := b.Allow(ctx, clock.Now()); ok {
		t.Error("the article took a token zpulse had taken")
	}
	clock.Advance(time.Second)
	if ok, _ := b.Allow(ctx, clock.Now()); !ok {
		t.Error("the article's bucket did not refill one token in a second")
	}
	if r := get(svc.Limiters.Peek(ctx, "tb", "c"))(t); r.Remaining != 0 {
		t.Errorf("zpulse sees %d tokens after the article took the refilled one", r.Remaining)
	}
}

// Second article, lock with compare-and-delete: each side excludes the other, and neither
// can release the other's lock.
func TestLockBothWays(t *testing.T) { redistest.ForEachTopology(t, testLockBothWays) }

func testLockBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, _ := setup(t, rdb)
	ctx := context.Background()
	l := Lock{RDB: rdb}
	if ok, _ := l.TryLock(ctx, "lock:order:1001", "svc-token", 30*time.Second); !ok {
		t.Fatal("the article could not lock")
	}
	if _, err := svc.Locks.Acquire(ctx, "order:1001", domain.LockOptions{TTL: 30 * time.Second}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("zpulse acquired a lock the article holds: %v", err)
	}
	if _, err := svc.Locks.Release(ctx, "order:1001", "not-the-token"); err == nil {
		t.Error("zpulse released the article's lock with another token")
	}
	if ok, _ := l.Unlock(ctx, "lock:order:1001", "svc-token"); !ok {
		t.Fatal("the article could not unlock its own lock")
	}
	lease := get(svc.Locks.Acquire(ctx, "order:1001", domain.LockOptions{TTL: 30 * time.Second}))(t)
	if ok, _ := l.TryLock(ctx, "lock:order:1001", "svc-token", 30*time.Second); ok {
		t.Error("the article locked what zpulse holds")
	}
	if ok, _ := l.Unlock(ctx, "lock:order:1001", "svc-token"); ok {
		t.Error("the article's unlock deleted zpulse's lock")
	}
	if ok, _ := l.Unlock(ctx, "lock:order:1001", lease.Token); !ok {
		t.Error("the article's compare-and-delete with zpulse's token must release it")
	}
}

// Shared limiter log: the main article's service with a 1-minute window beside zpulse's
// 10-second default never admits more than its limit.
func TestSharedLogLongerWindow(t *testing.T) { redistest.ForEachTopology(t, testSharedLogLongerWindow) }

func testSharedLogLongerWindow(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	n := 0
	lim := SlidingWindowRateLimiter{RDB: rdb, Now: func() int64 { return clock.Now().UnixMilli() }, ID: func() string { n++; return fmt.Sprint("u", n) }}
	admitted := 0
	try := func() {
		if ok, _ := lim.TryAcquire(ctx, "c", 5, time.Minute); ok {
			admitted++
		}
	}
	for range 3 {
		try()
	}
	for range 4 { // 12 s of zpulse traffic, each past its 10-second window
		clock.Advance(4 * time.Second)
		get(svc.Limiters.Allow(ctx, domain.DefaultLimiter, "c"))(t)
	}
	for range 6 {
		try()
	}
	if admitted > 5 {
		t.Errorf("the service admitted %d in a minute against a limit of 5", admitted)
	}
}
