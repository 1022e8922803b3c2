package locks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Watchdog renews the leases of locks held with a watchdog every TTL/3 until they are
// released, as Redisson's does, so a holder need not guess how long its work takes, and a
// holder that dies stops renewing: its lock expires one TTL later.
//
// All leases due at about the same time renew in ONE pipeline of compare-and-PEXPIRE
// scripts: a lease is renewed early when it falls due within a sixth of its TTL of the
// others, so a thousand held locks cost a round trip or two per TTL/3, not a thousand.
//
// What the holder learns (Held.Context ends with a cause wrapping domain.ErrLockLost):
//   - the renewal finds another token or no key: the lock expired, was released or
//     force-released elsewhere, or Redis lost it (a restart without persistence, a
//     failover to a replica that had not received it). The holder is told at once.
//   - Redis cannot be reached: the watchdog retries every TTL/10 and tells the holder when
//     the lease it last confirmed runs out (start of that renewal + TTL, less Redlock's
//     drift allowance of 1% + 2 ms), because from then on another owner may hold the lock.
//     If Redis comes back first, still holding the token, nothing is lost.
//
// Scheduling reads the injected clock, so tests drive RenewDue with a ManualClock; the
// leases themselves are counted down by Redis.
type Watchdog struct {
	locks *Locks
	clock domain.Clock
	wake  chan struct{}

	mu     sync.Mutex
	leases map[watchKey]*watched
}

type watchKey struct{ name, token string }

type watched struct {
	ttl        time.Duration
	due        time.Time // next renewal
	validUntil time.Time // the lease is known to last until then
	anonymous  bool      // watched for a caller without a Held (API, page): kept until released
	holders    map[*Held]struct{}
}

// renewTimeoutFloor bounds how soon a renewal round trip is given up when the earliest
// lease in it is about to run out.
const renewTimeoutFloor = 100 * time.Millisecond

func newWatchdog(l *Locks, clock domain.Clock) *Watchdog {
	return &Watchdog{locks: l, clock: clock, wake: make(chan struct{}, 1), leases: map[watchKey]*watched{}}
}

// drift is Redlock's allowance for clocks that run at different speeds: 1% of the TTL + 2 ms.
func drift(ttl time.Duration) time.Duration { return ttl/100 + 2*time.Millisecond }

// Held is a lock this process holds with a watchdog (see Locks.Hold).
type Held struct {
	lease  domain.Lease
	locks  *Locks
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// Lease is the lock as it was taken: token, fencing token, TTL.
func (h *Held) Lease() domain.Lease { return h.lease }

// Context ends when the lock is lost (cause wraps domain.ErrLockLost), when it was
// released (domain.ErrLockReleased), or when the context Hold was given ends. Work done
// under the lock should stop when it ends.
func (h *Held) Context() context.Context { return h.ctx }

// Release stops the renewals and releases the lock (one hold of a reentrant owner). The
// lease is not renewed any more even when Release fails: the lock then expires within a TTL.
// Returns ECONFLICT when the lock was already lost; EUNAVAILABLE.
func (h *Held) Release(ctx context.Context) error {
	holds, err := h.locks.release(ctx, h.lease.Lock, h.lease.Token)
	w := h.locks.watchdog
	if err == nil && holds == 0 {
		w.released(h.lease.Lock, h.lease.Token)
	} else {
		w.drop(h)
	}
	h.cancel(domain.ErrLockReleased)
	return err
}

// watch starts renewing lease, confirmed valid from sent on. h, when not nil, is told if
// the lock is lost.
func (w *Watchdog) watch(lease domain.Lease, sent time.Time, h *Held) {
	ttl := time.Duration(lease.TTLms) * time.Millisecond
	w.mu.Lock()
	k := watchKey{lease.Lock, lease.Token}
	e := w.leases[k]
	if e == nil {
		e = &watched{holders: map[*Held]struct{}{}}
		w.leases[k] = e
	}
	e.ttl, e.due, e.validUntil = ttl, sent.Add(ttl/3), sent.Add(ttl-drift(ttl))
	if h != nil {
		e.holders[h] = struct{}{}
	} else {
		e.anonymous = true
	}
	w.mu.Unlock()
	w.Nudge()
}

// Nudge makes Run look at its leases now (a new one may be due sooner than it planned).
func (w *Watchdog) Nudge() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// watching says whether this watchdog renews the lock of name held by token.
func (w *Watchdog) watching(name, token string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.leases[watchKey{name, token}] != nil
}

// Watched returns how many leases the watchdog renews.
func (w *Watchdog) Watched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.leases)
}

// released forgets a lock that is free now and ends its holders' contexts.
func (w *Watchdog) released(name, token string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchKey{name, token}
	if e := w.leases[k]; e != nil {
		delete(w.leases, k)
		e.tell(domain.ErrLockReleased)
	}
}

// drop stops telling h, and stops renewing when nobody else holds that lease.
func (w *Watchdog) drop(h *Held) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchKey{h.lease.Lock, h.lease.Token}
	if e := w.leases[k]; e != nil {
		delete(e.holders, h)
		if len(e.holders) == 0 && !e.anonymous {
			delete(w.leases, k)
		}
	}
}

func (e *watched) tell(cause error) {
	for h := range e.holders {
		h.cancel(cause)
	}
}

// Run renews leases as they fall due until ctx ends, then releases every lease it still
// renews (so other instances need not wait a TTL) and ends their holders' contexts.
func (w *Watchdog) Run(ctx context.Context) {
	for {
		t := time.NewTimer(w.UntilNext())
		select {
		case <-ctx.Done():
			t.Stop()
			w.stop()
			return
		case <-t.C:
		case <-w.wake:
			t.Stop()
		}
		w.RenewDue(ctx)
	}
}

// UntilNext is how long Run may sleep before a lease falls due.
func (w *Watchdog) UntilNext() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	next := time.Hour
	now := w.clock.Now()
	for _, e := range w.leases {
		next = min(next, e.due.Sub(now), e.validUntil.Sub(now))
	}
	return max(next, 0)
}

// RenewDue renews, in one pipeline, every lease due now or within a sixth of its TTL, and
// tells the holders of the leases it finds lost. It returns how many it renewed and lost.
func (w *Watchdog) RenewDue(ctx context.Context) (renewed, lost int) {
	now := w.clock.Now()
	type item struct {
		k watchKey
		e *watched
	}
	var batch []item
	timeout := time.Duration(-1)
	w.mu.Lock()
	for k, e := range w.leases {
		if !now.Before(e.validUntil) {
			// Only leases whose renewals failed get here: tell the holder now, not after
			// one more attempt, since another owner may take the lock from this moment.
			delete(w.leases, k)
			e.tell(fmt.Errorf("%w: lock %q: its lease ran out before it could be renewed (Redis did not answer)", domain.ErrLockLost, k.name))
			lost++
			continue
		}
		if !e.due.After(now.Add(e.ttl / 6)) {
			batch = append(batch, item{k, e})
			if left := e.validUntil.Sub(now); timeout < 0 || left < timeout {
				timeout = left
			}
		}
	}
	w.mu.Unlock()
	if len(batch) == 0 {
		return 0, lost
	}
	keys := make([]watchKey, len(batch))
	ttls := make([]time.Duration, len(batch))
	for i, it := range batch {
		keys[i], ttls[i] = it.k, it.e.ttl
	}
	rctx, cancel := context.WithTimeout(ctx, max(timeout, renewTimeoutFloor))
	held, err := w.extendAll(rctx, keys, ttls)
	cancel()
	if ctx.Err() != nil {
		return 0, lost // shutting down: stop() decides
	}
	after := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, it := range batch {
		if w.leases[it.k] != it.e {
			continue // released (or released and taken again) meanwhile
		}
		e := it.e
		switch {
		case err == nil && held[i]:
			e.validUntil, e.due = now.Add(e.ttl-drift(e.ttl)), now.Add(e.ttl/3)
			renewed++
		case err == nil:
			delete(w.leases, it.k)
			e.tell(fmt.Errorf("%w: lock %q is no longer held by this owner: it expired, was released or force-released elsewhere, or Redis lost it (restart or failover)", domain.ErrLockLost, it.k.name))
			lost++
		case !after.Before(e.validUntil):
			delete(w.leases, it.k)
			e.tell(fmt.Errorf("%w: lock %q: its lease ran out before it could be renewed: %s", domain.ErrLockLost, it.k.name, domain.ErrorMessage(err)))
			lost++
		default:
			e.due = after.Add(min(e.ttl/10, time.Second)) // Redis unreachable: try again soon
		}
	}
	return renewed, lost
}

// extendAll runs the extend script for every lease in one pipeline and says, per lease,
// whether its token still held the lock. After a NOSCRIPT (Redis restarted) Exec resends the
// script's text.
func (w *Watchdog) extendAll(ctx context.Context, keys []watchKey, ttls []time.Duration) ([]bool, error) {
	pipe := w.locks.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(keys))
	for i, k := range keys {
		cmds[i] = ExtendLockScript.Run(ctx, pipe, w.locks.lockKeys(k.name)[:2], k.token, ttls[i].Milliseconds())
	}
	if err := store.Exec(ctx, w.locks.rdb, pipe); err != nil {
		return nil, store.OpWriteError("locks.Watchdog.extendAll", err)
	}
	held := make([]bool, len(cmds))
	for i, c := range cmds {
		vals, err := c.Int64Slice()
		held[i] = err == nil && len(vals) > 0 && vals[0] == 1
	}
	return held, nil
}

// stop releases every lease still renewed, in one pipeline, and ends their holders' contexts.
func (w *Watchdog) stop() {
	w.mu.Lock()
	leases := w.leases
	w.leases = map[watchKey]*watched{}
	w.mu.Unlock()
	if len(leases) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pipe := w.locks.rdb.Pipeline()
	for k := range leases {
		forceReleaseLockScript.Run(ctx, pipe, w.locks.lockKeys(k.name)[:2], k.token)
		pipe.SRem(ctx, w.locks.keys.LockIndex(), k.name)
	}
	_ = store.Exec(ctx, w.locks.rdb, pipe) // best effort: what is not released expires within a TTL
	for _, e := range leases {
		e.tell(fmt.Errorf("%w: this process stopped renewing it", domain.ErrLockReleased))
	}
}
