package locks

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// articleUnlock is the article's release script, as a service written from it runs it.
var articleUnlock = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
else
  return 0
end`)

var ctx = context.Background()

// The article's lock, scene 3: SET lock:order:1001 <token> NX PX; a second acquire fails; a
// release with a wrong token changes nothing; the right token releases it. zpulse and code
// written from the article exclude each other on the same key. On one server and on the
// Cluster.
func TestLockArticleScenario(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testLockArticleScenario)
}

func testLockArticleScenario(t *testing.T, rdb redis.UniversalClient) {
	lk, _ := openLocks(rdb, nil)
	lease, err := lk.Acquire(ctx, "order:1001", domain.LockOptions{TTL: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(lease.Token) != 32 || lease.Holds != 1 || lease.Fence <= 0 || lease.TTLms != 30000 {
		t.Errorf("lease = %+v, want a 128-bit hex token, 1 hold, a fencing token, 30000 ms", lease)
	}
	if got := rdb.Get(ctx, "lock:order:1001").Val(); got != lease.Token {
		t.Errorf("GET lock:order:1001 = %q, want the token %q", got, lease.Token)
	}
	if pttl := rdb.PTTL(ctx, "lock:order:1001").Val(); pttl <= 29*time.Second || pttl > 30*time.Second {
		t.Errorf("PTTL = %v, want about 30s", pttl)
	}
	_, err = lk.Acquire(ctx, "order:1001", domain.LockOptions{TTL: time.Second})
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "expires in") {
		t.Errorf("second acquire = %v, want ECONFLICT saying when it expires", err)
	}
	// The article's own SET NX fails too: one lock for both.
	if ok := rdb.SetNX(ctx, "lock:order:1001", "article-uuid", 30*time.Second).Val(); ok {
		t.Error("the article's SET NX took a lock zpulse holds")
	}
	if _, err := lk.Release(ctx, "order:1001", "wrong-token"); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("release with a wrong token = %v, want ECONFLICT", err)
	}
	if n := articleUnlock.Run(ctx, rdb, []string{"lock:order:1001"}, "wrong-token").Val(); n != int64(0) {
		t.Errorf("the article's unlock with a wrong token = %v, want 0", n)
	}
	if got := rdb.Get(ctx, "lock:order:1001").Val(); got != lease.Token {
		t.Fatalf("after wrong releases GET = %q, want the holder's token still", got)
	}
	if holds, err := lk.Release(ctx, "order:1001", lease.Token); err != nil || holds != 0 {
		t.Fatalf("release = %d, %v", holds, err)
	}
	if n := rdb.Exists(ctx, "lock:order:1001", "{lock:order:1001}:meta").Val(); n != 0 {
		t.Errorf("after release %d lock keys remain", n)
	}
	// A lock taken by the article's code: zpulse sees it held, and the article's unlock
	// releases it.
	rdb.SetNX(ctx, "lock:order:1001", "article-uuid", 30*time.Second)
	if _, err := lk.Acquire(ctx, "order:1001", domain.LockOptions{TTL: time.Second}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("acquire over the article's lock = %v, want ECONFLICT", err)
	}
	info, err := lk.Inspect(ctx, "order:1001")
	if err != nil || info.Token != "article-uuid" || !info.Foreign() || info.Fence != 0 || info.Holds != 1 {
		t.Errorf("Inspect(foreign) = %+v, %v", info, err)
	}
	if _, err := lk.Release(ctx, "order:1001", "article-uuid"); err != nil {
		t.Errorf("zpulse releasing the article's lock with its token: %v", err)
	}
}

// Extend works for the holder only; a wrong token changes neither the value nor the TTL.
func TestExtendOnlyByTheHolder(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	lease, _ := lk.Acquire(ctx, "x", domain.LockOptions{TTL: 10 * time.Second})
	if _, err := lk.Extend(ctx, "x", "wrong", time.Hour); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("extend with a wrong token = %v, want ECONFLICT", err)
	}
	if pttl := rdb.PTTL(ctx, "lock:x").Val(); pttl > 10*time.Second {
		t.Errorf("a wrong extend changed PTTL to %v", pttl)
	}
	got, err := lk.Extend(ctx, "x", lease.Token, time.Hour)
	if err != nil || got.Fence != lease.Fence || got.TTLms != 3600000 {
		t.Fatalf("extend = %+v, %v", got, err)
	}
	if pttl := rdb.PTTL(ctx, "lock:x").Val(); pttl < 59*time.Minute {
		t.Errorf("PTTL after extend = %v, want about 1h", pttl)
	}
	if pttl := rdb.PTTL(ctx, "{lock:x}:meta").Val(); pttl < 59*time.Minute {
		t.Errorf("meta PTTL after extend = %v, want the lock's", pttl)
	}
	lk.Release(ctx, "x", lease.Token)
	if _, err := lk.Extend(ctx, "x", lease.Token, time.Hour); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("extend after release = %v, want ECONFLICT", err)
	}
	if rdb.Exists(ctx, "lock:x").Val() != 0 {
		t.Error("extend after release re-created the lock")
	}
}

// A holder that dies without releasing (no watchdog) loses the lock when its TTL ends,
// counted by Redis's clock, and another owner takes it.
func TestLockExpiresWithoutWatchdog(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	dead, _ := lk.Acquire(ctx, "x", domain.LockOptions{TTL: domain.MinLockTTL})
	expire(t, rdb, "x")
	next, err := lk.Acquire(ctx, "x", domain.LockOptions{TTL: time.Second})
	if err != nil || next.Fence <= dead.Fence {
		t.Fatalf("acquire after expiry = %+v, %v; want it, with a higher fence than %d", next, err, dead.Fence)
	}
	if _, err := lk.Release(ctx, "x", dead.Token); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("the dead holder's late release = %v, want ECONFLICT", err)
	}
	if rdb.Get(ctx, "lock:x").Val() != next.Token {
		t.Error("the dead holder's late release freed the next owner's lock")
	}
}

// expire does to a lock what the end of its lease does in Redis, at once: its key and its
// meta hash (which carry the same PX) are gone, the fencing counter stays. Redis's clock
// cannot be injected, and waiting for it would make the test slow and timed.
func expire(t *testing.T, rdb redis.UniversalClient, name string) {
	t.Helper()
	if err := rdb.Del(ctx, store.DefaultKeys.Lock(name), store.DefaultKeys.LockMeta(name)).Err(); err != nil {
		t.Fatal(err)
	}
}

// Fencing tokens grow with every acquisition, across holders, and across a Redis that lost
// its data (FLUSHDB of the test's database stands for a restart without persistence).
func TestFencingTokensGrow(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	var last int64
	for i := range 5 {
		l, err := lk.Acquire(ctx, "f", domain.LockOptions{TTL: time.Second})
		if err != nil || l.Fence <= last {
			t.Fatalf("acquisition %d: fence %d after %d (%v)", i, l.Fence, last, err)
		}
		last = l.Fence
		lk.Release(ctx, "f", l.Token)
	}
	if err := rdb.FlushDB(ctx).Err(); err != nil { // the test's own database: Redis lost its data
		t.Fatal(err)
	}
	l, err := lk.Acquire(ctx, "f", domain.LockOptions{TTL: time.Second})
	if err != nil || l.Fence <= last {
		t.Errorf("after Redis lost its data: fence %d, want above %d (%v)", l.Fence, last, err)
	}
	if l.Fence > 1<<53 {
		t.Errorf("fence %d is not exact in a double (JavaScript)", l.Fence)
	}
	// Force-release keeps the counter: the next holder still gets a higher token.
	if err := lk.ForceRelease(ctx, "f", ""); err != nil {
		t.Fatal(err)
	}
	if n, _ := lk.Acquire(ctx, "f", domain.LockOptions{TTL: time.Second}); n.Fence != l.Fence+1 {
		t.Errorf("fence after a force-release = %d, want %d", n.Fence, l.Fence+1)
	}
}

// Reentrancy: the same owner takes the lock again and must release it as often; anybody
// else is refused throughout.
func TestReentrantLock(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	opt := domain.LockOptions{TTL: 10 * time.Second, Owner: "worker-7"}
	a, err := lk.Acquire(ctx, "r", opt)
	if err != nil || a.Token != "worker-7" || a.Holds != 1 {
		t.Fatalf("first = %+v, %v", a, err)
	}
	b, err := lk.Acquire(ctx, "r", opt)
	if err != nil || b.Holds != 2 || b.Fence != a.Fence {
		t.Fatalf("second = %+v, %v; want 2 holds and the same fence", b, err)
	}
	if _, err := lk.Acquire(ctx, "r", domain.LockOptions{TTL: time.Second, Owner: "worker-8"}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("another owner = %v, want ECONFLICT", err)
	}
	if _, err := lk.Acquire(ctx, "r", domain.LockOptions{TTL: time.Second}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("a plain acquire = %v, want ECONFLICT", err)
	}
	if info, _ := lk.Inspect(ctx, "r"); info.Holds != 2 || !info.Reentrant {
		t.Errorf("Inspect = %+v, want 2 holds, reentrant", info)
	}
	if holds, err := lk.Release(ctx, "r", "worker-7"); err != nil || holds != 1 {
		t.Fatalf("first release = %d, %v; want 1 hold left", holds, err)
	}
	if rdb.Get(ctx, "lock:r").Val() != "worker-7" {
		t.Fatal("the lock was freed with a hold left")
	}
	if holds, err := lk.Release(ctx, "r", "worker-7"); err != nil || holds != 0 {
		t.Fatalf("second release = %d, %v; want free", holds, err)
	}
	if _, err := lk.Release(ctx, "r", "worker-7"); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("a third release = %v, want ECONFLICT", err)
	}
	// A plain (non-reentrant) acquire is not reentrant even for the same token.
	p, _ := lk.Acquire(ctx, "p", domain.LockOptions{TTL: time.Second})
	if _, err := lk.Acquire(ctx, "p", domain.LockOptions{TTL: time.Second, Owner: p.Token}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("reentering a plain lock = %v, want ECONFLICT", err)
	}
}

// TryLock: a waiter gets the lock when the holder releases within its wait, gives up with
// ECONFLICT when not, and stops at once when its context ends.
func TestAcquireWaits(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	holder, _ := lk.Acquire(ctx, "w", domain.LockOptions{TTL: 10 * time.Second})
	// The holder releases once the waiter has tried (the holder's acquire was call 1).
	redistest.AfterScriptCalls(rdb, store.DefaultKeys.Lock("w"), 2, func() { go lk.Release(ctx, "w", holder.Token) })
	got, err := lk.Acquire(ctx, "w", domain.LockOptions{TTL: time.Second, Wait: 5 * time.Second})
	if err != nil || got.Fence <= holder.Fence {
		t.Fatalf("waiter = %+v, %v; want the lock after the release", got, err)
	}
	start := time.Now()
	_, err = lk.Acquire(ctx, "w", domain.LockOptions{TTL: time.Second, Wait: 30 * time.Millisecond})
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "after waiting 30 ms") {
		t.Errorf("short wait = %v, want ECONFLICT after waiting", err)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Errorf("gave up after %v, before the wait of 30ms", time.Since(start))
	}
	cctx, cancel := context.WithCancel(ctx)
	redistest.AfterScriptCalls(rdb, store.DefaultKeys.Lock("w"), 1, cancel) // the waiter's context ends after its first attempt
	start = time.Now()
	_, err = lk.Acquire(cctx, "w", domain.LockOptions{TTL: time.Second, Wait: domain.MaxLockWait})
	if !errors.Is(err, context.Canceled) || time.Since(start) > domain.MaxLockWait/2 { // a bound far from the wait's end
		t.Errorf("cancelled waiter = %v after %v, want context.Canceled at once, not the wait's end", err, time.Since(start))
	}
}

// 100 goroutines contend for one lock over 10,000 acquisitions: there is never more than one
// holder (a counter only holders touch, with a yield inside its read-modify-write, loses no
// update, as in mennanov/limiters' lock test), fencing tokens are seen in increasing order,
// and every waiter gets the lock each time it asks.
func TestLockContention(t *testing.T) {
	t.Parallel()
	lk, _ := newTestLocks(t)
	const workers, each = 100, 100
	var (
		holders, counter, maxHolders atomic.Int64
		lastFence                    atomic.Int64
		fenceErrors                  atomic.Int64
		wg                           sync.WaitGroup
		failures                     = make(chan error, workers)
	)
	for range workers {
		wg.Go(func() {
			for range each {
				l, err := lk.Acquire(ctx, "hot", domain.LockOptions{TTL: 10 * time.Second, Wait: domain.MaxLockWait})
				if err != nil {
					failures <- err
					return
				}
				if n := holders.Add(1); n > maxHolders.Load() {
					maxHolders.Store(n)
				}
				if l.Fence <= lastFence.Load() {
					fenceErrors.Add(1)
				}
				lastFence.Store(l.Fence)
				v := counter.Load()
				runtime.Gosched()
				counter.Store(v + 1)
				holders.Add(-1)
				if _, err := lk.Release(ctx, "hot", l.Token); err != nil {
					failures <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Errorf("a waiter did not get the lock: %v", err)
	}
	if maxHolders.Load() != 1 || counter.Load() != workers*each || fenceErrors.Load() != 0 {
		t.Errorf("max holders %d (want 1), counter %d (want %d), fences out of order %d",
			maxHolders.Load(), counter.Load(), workers*each, fenceErrors.Load())
	}
}

func TestForceRelease(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	lk, found := openLocks(rdb, nil)
	l, _ := lk.Acquire(ctx, "stuck", domain.LockOptions{TTL: time.Hour, Owner: "w"})
	lk.Acquire(ctx, "stuck", domain.LockOptions{TTL: time.Hour, Owner: "w"})
	if err := lk.ForceRelease(ctx, "stuck", "someone-else"); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("force-release expecting another token = %v, want ECONFLICT", err)
	}
	if err := lk.ForceRelease(ctx, "stuck", l.Token); err != nil {
		t.Fatalf("force-release = %v", err)
	}
	if n := rdb.Exists(ctx, "lock:stuck", "{lock:stuck}:meta").Val(); n != 0 {
		t.Error("force-release left the lock (both holds go)")
	}
	if err := lk.ForceRelease(ctx, "stuck", ""); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("force-release of a free lock = %v, want ENOTFOUND", err)
	}
	// Another library's lock (a Redisson hash) can be force-released, and is listed.
	rdb.HSet(ctx, "lock:redisson", "uuid:1", 1)
	found.Refresh(ctx) // as discovery's cadence would: List reads its snapshot
	held, err := lk.List(ctx)
	if err != nil || len(held.Locks) != 1 || held.Locks[0].Type != "hash" || held.Locks[0].RemainingMs != -1 {
		t.Errorf("List = %+v, %v; want the hash lock, without expiry", held, err)
	}
	if err := lk.ForceRelease(ctx, "redisson", ""); err != nil {
		t.Errorf("force-release of a hash lock = %v", err)
	}
}

func TestLockInvalidInputWritesNothing(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	bad := []struct {
		name string
		opt  domain.LockOptions
		want string
	}{
		{"a b", domain.LockOptions{TTL: time.Second}, "1 to 64 characters"},
		{"", domain.LockOptions{TTL: time.Second}, "1 to 64 characters"},
		{"x", domain.LockOptions{TTL: 99 * time.Millisecond}, "ttl_ms must be a whole number of milliseconds from 100 to 86400000"},
		{"x", domain.LockOptions{TTL: 25 * time.Hour}, "from 100 to 86400000"},
		{"x", domain.LockOptions{TTL: time.Second, Wait: -1}, "wait_ms must be from 0 to 30000"},
		{"x", domain.LockOptions{TTL: time.Second, Wait: time.Minute}, "wait_ms must be from 0 to 30000"},
		{"x", domain.LockOptions{TTL: time.Second, Owner: "a b"}, "without spaces"},
		{"x", domain.LockOptions{TTL: time.Second, Owner: strings.Repeat("o", 129)}, "at most 128 bytes"},
	}
	for _, c := range bad {
		t.Run(c.want, func(t *testing.T) {
			_, err := lk.Acquire(ctx, c.name, c.opt)
			if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), c.want) {
				t.Errorf("Acquire(%q, %+v) = %v, want EINVALID mentioning %q", c.name, c.opt, err, c.want)
			}
		})
	}
	if _, err := lk.Release(ctx, "x", ""); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("release without token = %v", err)
	}
	if _, err := lk.Extend(ctx, "x", "t", time.Millisecond); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("extend by 1ms = %v", err)
	}
	if keys := rdb.Keys(ctx, "*").Val(); len(keys) != 0 {
		t.Errorf("invalid input wrote %v", keys)
	}
}
