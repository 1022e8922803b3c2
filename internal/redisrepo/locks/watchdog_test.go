package locks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

var epoch = time.Date(2026, 7, 25, 12, 0, 0, 0, time.UTC)

// newManualLocks returns locks whose watchdog schedules by a manual clock; tests call
// RenewDue themselves instead of running the watchdog.
func newManualLocks(t *testing.T) (*Locks, *redis.Client, *domain.ManualClock) {
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(epoch)
	lk, _ := openLocks(rdb, clock)
	return lk, rdb, clock
}

// With the watchdog, a holder keeps its lock across several TTLs of work: every TTL/3 the
// lease is back to a full TTL. Redis's own countdown is stood in for by cutting the key's
// PTTL to 1 s before each renewal. At release the renewals stop. On one server and on the
// Cluster.
func TestWatchdogKeepsTheLockAcrossSeveralTTLs(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testWatchdogKeepsTheLockAcrossSeveralTTLs)
}

func testWatchdogKeepsTheLockAcrossSeveralTTLs(t *testing.T, rdb redis.UniversalClient) {
	clock := domain.NewManualClock(epoch)
	lk, _ := openLocks(rdb, clock)
	h, err := lk.Hold(ctx, "job", domain.LockOptions{TTL: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(4 * time.Second) // Due at 10 s; not even within a sixth of the TTL of it
	if renewed, _ := lk.Watchdog().RenewDue(ctx); renewed != 0 {
		t.Errorf("renewed %d leases 4 s into a 30 s lease, want 0", renewed)
	}
	clock.Advance(6 * time.Second)
	for step := range 10 { // 100 s of work: more than three TTLs
		rdb.PExpire(ctx, "lock:job", time.Second)
		if renewed, lost := lk.Watchdog().RenewDue(ctx); renewed != 1 || lost != 0 {
			t.Fatalf("step %d: renewed %d, lost %d; want 1, 0", step, renewed, lost)
		}
		if pttl := rdb.PTTL(ctx, "lock:job").Val(); pttl < 29*time.Second {
			t.Fatalf("step %d: PTTL %v after the renewal, want about 30s", step, pttl)
		}
		clock.Advance(10 * time.Second)
	}
	if rdb.Get(ctx, "lock:job").Val() != h.Lease().Token || h.Context().Err() != nil {
		t.Fatal("the holder lost its lock during its work")
	}
	if info, _ := lk.Inspect(ctx, "job"); !info.Watchdog || info.LeaseMs != 30000 {
		t.Errorf("Inspect = %+v, want the watchdog shown", info)
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(context.Cause(h.Context()), domain.ErrLockReleased) {
		t.Errorf("cause after release = %v", context.Cause(h.Context()))
	}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	clock.Advance(time.Minute)
	if renewed, _ := lk.Watchdog().RenewDue(ctx); renewed != 0 || hook.Pipelines+hook.Single != 0 || lk.Watchdog().Watched() != 0 {
		t.Errorf("after release: renewed %d with %d round trips, watching %d; want nothing", renewed, hook.Pipelines+hook.Single, lk.Watchdog().Watched())
	}
}

// When the renewal finds the lock gone or taken by another token, the holder is told at
// once (its context ends with ErrLockLost) and the other owner's lease is left alone.
func TestWatchdogTellsTheHolderWhenTheLockIsLost(t *testing.T) {
	t.Parallel()
	lk, rdb, clock := newManualLocks(t)
	h, _ := lk.Hold(ctx, "job", domain.LockOptions{TTL: 30 * time.Second})
	rdb.Set(ctx, "lock:job", "somebody-else", 5*time.Second) // expired and taken meanwhile
	clock.Advance(10 * time.Second)
	if _, lost := lk.Watchdog().RenewDue(ctx); lost != 1 {
		t.Fatalf("lost = %d, want 1", lost)
	}
	select {
	case <-h.Context().Done():
	default:
		t.Fatal("the holder's context did not end")
	}
	cause := context.Cause(h.Context())
	if !errors.Is(cause, domain.ErrLockLost) || !strings.Contains(cause.Error(), "no longer held by this owner") {
		t.Errorf("cause = %v", cause)
	}
	if pttl := rdb.PTTL(ctx, "lock:job").Val(); pttl > 5*time.Second {
		t.Errorf("the other owner's lease was extended to %v", pttl)
	}
	if err := h.Release(ctx); domain.ErrorCode(err) != domain.ECONFLICT || rdb.Get(ctx, "lock:job").Val() != "somebody-else" {
		t.Errorf("releasing a lost lock = %v, want ECONFLICT, nothing deleted", err)
	}
}

// While Redis does not answer, a holder keeps its lock until the lease it last confirmed runs
// out (less the drift allowance) and is told at that moment, not a renewal later: from then on
// another owner may hold the lock. By the watchdog's clock, so the moment is exact.
func TestWatchdogTellsTheHolderWhenItsLeaseRunsOutWithRedisDown(t *testing.T) {
	t.Parallel()
	srv, err := redistest.Start() // a Redis of its own, to stop
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	clock := domain.NewManualClock(epoch)
	lk, _ := openLocks(rdb, clock)
	const ttl = 3 * time.Second
	h, err := lk.Hold(ctx, "job", domain.LockOptions{TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	end := ttl - drift(ttl)
	clock.Advance(ttl / 3) // the first renewal is due, and fails
	if renewed, lost := lk.Watchdog().RenewDue(ctx); renewed != 0 || lost != 0 || h.Context().Err() != nil {
		t.Fatalf("a failed renewal with the lease still valid: renewed %d, lost %d, holder told %v", renewed, lost, context.Cause(h.Context()))
	}
	clock.Advance(end - ttl/3 - time.Millisecond)
	lk.Watchdog().RenewDue(ctx)
	if h.Context().Err() != nil {
		t.Fatalf("told a millisecond before the lease ran out: %v", context.Cause(h.Context()))
	}
	clock.Advance(time.Millisecond)
	if _, lost := lk.Watchdog().RenewDue(ctx); lost != 1 {
		t.Fatalf("lost = %d when the lease ran out, want 1", lost)
	}
	if cause := context.Cause(h.Context()); !errors.Is(cause, domain.ErrLockLost) || !strings.Contains(cause.Error(), "lease ran out before it could be renewed") {
		t.Errorf("cause = %v, want ErrLockLost saying the lease ran out", cause)
	}
}

// Many held locks renew in few round trips: 90 leases taken at times spread over 10 s of a
// 30 s TTL, driven for 60 s the way Run drives them (sleep until the next is due, renew),
// Take about two pipelines per TTL/3 instead of one round trip per lease.
func TestWatchdogBatchesRenewals(t *testing.T) {
	t.Parallel()
	lk, rdb, clock := newManualLocks(t)
	const n = 90
	held := make([]*Held, n)
	for i := range held {
		h, err := lk.Hold(ctx, fmt.Sprintf("job:%d", i), domain.LockOptions{TTL: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		held[i] = h
		clock.Advance(10 * time.Second / n)
	}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	wd := lk.Watchdog()
	end := clock.Now().Add(time.Minute)
	renewals := 0
	for clock.Now().Before(end) {
		clock.Advance(wd.UntilNext())
		renewed, lost := wd.RenewDue(ctx)
		if lost != 0 {
			t.Fatalf("lost %d leases", lost)
		}
		renewals += renewed
	}
	t.Logf("%d renewals in %d pipelines over 60 s", renewals, hook.Pipelines)
	if renewals < n*5 || hook.Pipelines > 14 || hook.Single != 0 {
		t.Errorf("%d renewals in %d pipelines and %d single calls; want at least %d renewals in at most 14 pipelines",
			renewals, hook.Pipelines, hook.Single, n*5)
	}
	for i, h := range held {
		if h.Context().Err() != nil {
			t.Errorf("lease %d lost", i)
		}
	}
}

// The same on real time, with Run: a holder keeps a 3 s lock through three renewals (a TTL
// of work), and once released it is no longer watched, so no renewal follows. The
// test waits on the renewals themselves (a hook), not on a sleep.
func TestWatchdogRunsOnRealTime(t *testing.T) {
	t.Parallel()
	lk, rdb := newTestLocks(t)
	renewed := make(chan struct{}, 16)
	rdb.AddHook(redistest.HookAfter(func(cmd redis.Cmder) {
		if args := cmd.Args(); len(args) > 1 && (args[1] == any(ExtendLockScript.Hash()) || args[1] == any(ExtendLockScript.Source())) {
			select {
			case renewed <- struct{}{}:
			default:
			}
		}
	}))
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { lk.Watchdog().Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	// A TTL long enough that a machine busy with other packages' tests (-race, side by side)
	// does not starve a renewal past it: renewals come every TTL/3.
	const ttl = 3 * time.Second
	start := time.Now()
	h, err := lk.Hold(ctx, "job", domain.LockOptions{TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // the work
		select {
		case <-renewed:
		case <-h.Context().Done():
			t.Fatalf("the lock was lost during the work: %v", context.Cause(h.Context()))
		}
	}
	if rdb.Get(ctx, "lock:job").Val() != h.Lease().Token || h.Context().Err() != nil {
		t.Fatalf("the lock was lost during the work: %v", context.Cause(h.Context()))
	}
	if time.Since(start) < ttl/2 { // renewals every TTL/3: three take about two thirds of a TTL
		t.Errorf("three renewals within %v: faster than renewals every TTL/3 can come", time.Since(start))
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if n := lk.Watchdog().Watched(); n != 0 {
		t.Errorf("%d leases still watched after the release, want none (they would be renewed)", n)
	}
}

// One loop runs in one instance at a time: two instances (two Locks on one Redis) run the
// same singleton; when the leader stops, the other takes over; when an admin force-releases
// the lock, the loop's context ends and it campaigns again.
func TestSingletonRunsInOneInstance(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var running, maxRunning, terms atomic.Int64
	started := make(chan struct{}, 8) // a term began
	loop := func(ctx context.Context, _ int64) error {
		if n := running.Add(1); n > maxRunning.Load() {
			maxRunning.Store(n)
		}
		terms.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		running.Add(-1)
		return nil
	}
	type instance struct {
		lk   *Locks
		stop context.CancelFunc
		done chan error
	}
	start := func() *instance {
		lk, _ := openLocks(rdb, nil)
		s := NewSingletons(lk, store.DefaultKeys, log, SingletonTimings{TTL: 300 * time.Millisecond, Retry: 30 * time.Millisecond})
		ictx, stop := context.WithCancel(ctx)
		in := &instance{lk: lk, stop: stop, done: make(chan error, 1)}
		var wg sync.WaitGroup
		wg.Go(func() { lk.Watchdog().Run(ictx) })
		go func() { err := s.Run(ictx, "reaper", loop); wg.Wait(); in.done <- err }()
		return in
	}
	a, b := start(), start()
	waitTerm(t, started, "a first term", func() bool { return terms.Load() == 1 })
	leader, other := a, b
	if b.lk.Watchdog().Watched() == 1 {
		leader, other = b, a
	}
	info, err := leader.lk.Inspect(ctx, "zpulse:reaper")
	if err != nil || !info.Watchdog || !strings.Contains(info.Token, ":") {
		t.Errorf("the singleton's lock = %+v, %v; want a watchdog and a token naming the instance", info, err)
	}

	leader.stop()
	if err := <-leader.done; !errors.Is(err, context.Canceled) {
		t.Errorf("the stopped instance's Run = %v, want context.Canceled", err)
	}
	waitTerm(t, started, "the other instance to take over", func() bool { return terms.Load() == 2 && running.Load() == 1 })

	if err := other.lk.ForceRelease(ctx, "zpulse:reaper", ""); err != nil {
		t.Fatal(err)
	}
	waitTerm(t, started, "a third term after the force-release", func() bool { return terms.Load() == 3 && running.Load() == 1 })
	other.stop()
	<-other.done
	if maxRunning.Load() != 1 {
		t.Errorf("%d instances ran the loop at once, want 1", maxRunning.Load())
	}

	// A loop that returns on its own ends Run with its result.
	once, _ := openLocks(rdb, nil)
	s := NewSingletons(once, store.DefaultKeys, log, SingletonTimings{})
	boom := errors.New("boom")
	if err := s.Run(ctx, "once", func(context.Context, int64) error { return boom }); err != boom {
		t.Errorf("Run = %v, want the loop's error", err)
	}
	if rdb.Exists(ctx, "lock:zpulse:once").Val() != 0 {
		t.Error("the lock outlived the loop")
	}
}

// waitTerm waits for the next term of a singleton loop to begin, then checks cond: a term
// begins only once the previous holder's loop has returned and its lock was freed.
func waitTerm(t *testing.T, started <-chan struct{}, what string, cond func() bool) {
	t.Helper()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatalf("waited 10s for %s", what)
	}
	if !cond() {
		t.Fatalf("at %s the counts are wrong", what)
	}
}
