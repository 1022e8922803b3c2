package locks

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Backoff of a waiter polling for a lock held by another (see acquire).
const (
	lockBackoffBase = 2 * time.Millisecond
	lockBackoffMax  = 30 * time.Millisecond
)

// Locks is the Redis implementation of domain.LockService. Locks taken with a watchdog are
// renewed by Watchdog(), which must run (Services.Run runs it).
type Locks struct {
	rdb      redis.UniversalClient
	keys     store.Keys
	watchdog *Watchdog
	gates    gates
	found    *store.Discovery
	replicas store.ReplicaWait // a lock taken waits for replicas (OpenOptions.WaitReplicas)
}

var _ domain.LockService = (*Locks)(nil)

// NewLocks returns locks kept in rdb under keys, listing those found, with a watchdog that
// schedules renewals by the local clock.
func NewLocks(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks, replicas store.ReplicaWait) *Locks {
	l := &Locks{rdb: rdb, keys: keys, found: found, replicas: replicas}
	l.watchdog = newWatchdog(l, c.Local())
	return l
}

// Watchdog returns the watchdog that renews this Locks' watched leases.
func (l *Locks) Watchdog() *Watchdog { return l.watchdog }

// scriptError is the error reply of a script's run, "" for none (or no run).
func scriptError(cmd *redis.Cmd) string {
	if cmd == nil || cmd.Err() == nil {
		return ""
	}
	return cmd.Err().Error()
}

func (l *Locks) lockKeys(name string) []string {
	return []string{l.keys.Lock(name), l.keys.LockMeta(name), l.keys.LockFence(name)}
}

// NewToken returns a random lock token: 128 bits, as hex.
func NewToken() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

func (l *Locks) Acquire(ctx context.Context, name string, opt domain.LockOptions) (domain.Lease, error) {
	if err := l.refuseSingleton(name); err != nil {
		return domain.Lease{}, err
	}
	lease, sent, err := l.acquire(ctx, name, opt, "", l.replicas)
	if err == nil && opt.Watchdog {
		l.watchdog.watch(lease, sent, nil)
	}
	return lease, err
}

// Hold takes a lock with a watchdog for code in this process: the lease is renewed every
// TTL/3 until Release, and the returned Held's Context ends, with a cause wrapping
// domain.ErrLockLost, as soon as the lock is lost. Errors as Acquire.
func (l *Locks) Hold(ctx context.Context, name string, opt domain.LockOptions) (*Held, error) {
	if err := l.refuseSingleton(name); err != nil {
		return nil, err
	}
	return l.hold(ctx, name, opt, "", l.replicas)
}

// refuseSingleton keeps the names of zpulse's singleton locks (Keys.IsSingletonLock) for
// Singletons, which take them through hold: a lock anyone else takes is never a singleton's.
// Returns EINVALID.
func (l *Locks) refuseSingleton(name string) error {
	if l.keys.IsSingletonLock(name) {
		return domain.Errorf(domain.EINVALID, "lock names starting with %q are zpulse's own (its singleton loops hold them); choose another name (got %q)", l.keys.SingletonLock(""), name)
	}
	return nil
}

// hold is Hold with a given token for a non-reentrant lock ("" for a random one), waiting
// for the given replicas.
func (l *Locks) hold(ctx context.Context, name string, opt domain.LockOptions, token string, replicas store.ReplicaWait) (*Held, error) {
	opt.Watchdog = true
	lease, sent, err := l.acquire(ctx, name, opt, token, replicas)
	if err != nil {
		return nil, err
	}
	h := &Held{lease: lease, locks: l}
	h.ctx, h.cancel = context.WithCancelCause(ctx)
	l.watchdog.watch(lease, sent, h)
	return h, nil
}

// acquire takes the lock and returns, besides the lease, when the successful attempt was
// sent by the watchdog's clock: the lease is known to last a TTL from then. token, when not
// empty, is used for a non-reentrant lock instead of a random one. The lock taken waits for
// Replicas (see replicaWait).
func (l *Locks) acquire(ctx context.Context, name string, opt domain.LockOptions, token string, replicas store.ReplicaWait) (domain.Lease, time.Time, error) {
	if err := domain.ValidateName("lock", name); err != nil {
		return domain.Lease{}, time.Time{}, err
	}
	if err := domain.ValidateLockOptions(opt); err != nil {
		return domain.Lease{}, time.Time{}, err
	}
	reentrant := "0"
	switch {
	case opt.Owner != "":
		token, reentrant = opt.Owner, "1"
	case token == "":
		token = NewToken()
	}
	args := []any{token, opt.TTL.Milliseconds(), reentrant, BoolArg(opt.Watchdog)}
	try := func() (domain.Lease, time.Time, int64, error) {
		sent := l.watchdog.clock.Now()
		// The index is not part of the lock's atomic step: SADD is idempotent and keeps the
		// Script in the lock's slot; it only helps the /locks page find the lock at once.
		var cmd *redis.Cmd
		err := replicas.Write(ctx, l.rdb, l.keys.Lock(name), func(pipe redis.Pipeliner) {
			cmd = acquireLockScript.Run(ctx, pipe, l.lockKeys(name), args...)
		}, func(pipe redis.Pipeliner) { pipe.SAdd(ctx, l.keys.LockIndex(), name) })
		if errors.Is(err, store.ErrNotReplicated) {
			if vals, _ := cmd.Int64Slice(); len(vals) > 0 && vals[0] == 1 {
				// Taken, but a failover could hand it to another owner while this one
				// believes it holds it: give it back.
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
				_, _ = l.release(rctx, name, token) // best effort: else it expires within its TTL
				cancel()
				return domain.Lease{}, time.Time{}, 0, fmt.Errorf("locks.Locks.acquire: lock %q was given back: %w", name, err)
			}
			err = nil // not taken: nothing to confirm
		}
		if value, ok := strings.CutPrefix(scriptError(cmd), "BADFENCE "); ok {
			return domain.Lease{}, time.Time{}, 0, fmt.Errorf("locks.Locks.acquire: %w", domain.Errorf(domain.ECONFLICT,
				"the fencing counter %s holds %q, which zpulse cannot raise to a token above every earlier one: lock %q was not taken and nothing was written; set the counter to a whole number above the last token given (or delete it: it restarts at Redis's time in µs)", l.keys.LockFence(name), value, name))
		}
		if err != nil {
			return domain.Lease{}, time.Time{}, 0, store.OpWriteError("locks.Locks.acquire", err)
		}
		vals, err := cmd.Int64Slice()
		if err != nil || len(vals) < 2 || (vals[0] == 1 && len(vals) != 3) {
			return domain.Lease{}, time.Time{}, 0, fmt.Errorf("locks.Locks.acquire: unexpected reply %v", cmd.Val())
		}
		if vals[0] == 1 {
			return domain.Lease{Lock: name, Token: token, Fence: vals[1], TTLms: opt.TTL.Milliseconds(), Holds: vals[2], Watchdog: opt.Watchdog}, sent, 0, nil
		}
		return domain.Lease{}, time.Time{}, vals[1], nil
	}
	lease, sent, pttl, err := try()
	if err != nil || lease.Token != "" || opt.Wait == 0 {
		if err == nil && lease.Token == "" {
			err = heldError(name, pttl, 0)
		}
		return lease, sent, err
	}

	// Waiting. In this process, one waiter per lock polls Redis and the others queue behind
	// it (the gate), so a hundred goroutines waiting for one lock cost one poller's traffic,
	// and a release made here wakes the poller at once. The poller backs off with full
	// jitter (a random sleep up to an exponentially growing cap), so pollers of several
	// instances spread out instead of hammering Redis in step.
	deadline := time.NewTimer(opt.Wait)
	defer deadline.Stop()
	g := l.gates.enter(name)
	defer l.gates.leave(name, g)
	select {
	case g.poller <- struct{}{}:
		defer func() { <-g.poller }()
	case <-ctx.Done():
		return domain.Lease{}, time.Time{}, ctx.Err()
	case <-deadline.C:
		return domain.Lease{}, time.Time{}, heldError(name, pttl, opt.Wait)
	}
	for attempt := 0; ; attempt++ {
		lease, sent, _, err = try() // the last try below reports the time left
		if err != nil || lease.Token != "" {
			return lease, sent, err
		}
		t := time.NewTimer(rand.N(min(lockBackoffMax, lockBackoffBase<<min(attempt, 10))) + time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return domain.Lease{}, time.Time{}, ctx.Err()
		case <-deadline.C:
			t.Stop()
			// One last try: the lock may have been freed while we slept.
			if lease, sent, pttl, err = try(); err == nil && lease.Token == "" {
				err = heldError(name, pttl, opt.Wait)
			}
			return lease, sent, err
		case <-g.freed:
			t.Stop()
		case <-t.C:
		}
	}
}

func heldError(name string, pttl int64, waited time.Duration) error {
	expires := "never expires (it was set without a TTL)"
	if pttl >= 0 {
		expires = "expires in " + domain.FormatDuration(time.Duration(pttl)*time.Millisecond) + " unless its holder extends it"
	}
	if waited > 0 {
		return domain.Errorf(domain.ECONFLICT, "lock %q is still held by another owner after waiting %s; it %s", name, domain.FormatDuration(waited), expires)
	}
	return domain.Errorf(domain.ECONFLICT, "lock %q is held by another owner; it %s", name, expires)
}

func (l *Locks) Release(ctx context.Context, name, token string) (int64, error) {
	if err := validateNameToken(name, token); err != nil {
		return 0, err
	}
	holds, err := l.release(ctx, name, token)
	if err != nil {
		return 0, err
	}
	if holds == 0 {
		l.watchdog.released(name, token)
	}
	return holds, nil
}

func (l *Locks) release(ctx context.Context, name, token string) (int64, error) {
	holds, err := releaseLockScript.Run(ctx, l.rdb, l.lockKeys(name)[:2], token).Int64()
	switch {
	case err != nil:
		return 0, store.OpWriteError("locks.Locks.release", err)
	case holds < 0:
		return 0, domain.Errorf(domain.ECONFLICT, "that token does not hold lock %q (it expired, was released, or another owner holds it now); nothing was changed", name)
	case holds == 0:
		l.gates.freed(name)
		// The name leaves the page's index; a lock taken meanwhile is found by the SCAN.
		if err := l.rdb.SRem(ctx, l.keys.LockIndex(), name).Err(); err != nil {
			return 0, store.OpError("locks.Locks.release", err)
		}
	}
	return holds, nil
}

func (l *Locks) Extend(ctx context.Context, name, token string, ttl time.Duration) (domain.Lease, error) {
	if err := validateNameToken(name, token); err != nil {
		return domain.Lease{}, err
	}
	if err := domain.ValidateLockOptions(domain.LockOptions{TTL: ttl}); err != nil {
		return domain.Lease{}, err
	}
	vals, err := ExtendLockScript.Run(ctx, l.rdb, l.lockKeys(name)[:2], token, ttl.Milliseconds()).Int64Slice()
	switch {
	case err != nil:
		return domain.Lease{}, store.OpWriteError("locks.Locks.Extend", err)
	case len(vals) == 0 || vals[0] != 1:
		return domain.Lease{}, domain.Errorf(domain.ECONFLICT, "that token does not hold lock %q (it expired, was released, or another owner holds it now); nothing was changed", name)
	case len(vals) != 3:
		return domain.Lease{}, fmt.Errorf("locks.Locks.Extend: unexpected reply %v", vals)
	}
	return domain.Lease{Lock: name, Token: token, Fence: vals[1], TTLms: ttl.Milliseconds(), Holds: vals[2], Watchdog: l.watchdog.watching(name, token)}, nil
}

func (l *Locks) ForceRelease(ctx context.Context, name, expectToken string) error {
	if err := domain.ValidateKeyName("lock", name); err != nil {
		return err
	}
	if expectToken != "" {
		if err := domain.ValidateToken("token", expectToken); err != nil {
			return err
		}
	}
	res, err := forceReleaseLockScript.Run(ctx, l.rdb, l.lockKeys(name)[:2], expectToken).Int64()
	switch {
	case err != nil:
		return store.OpWriteError("locks.Locks.ForceRelease", err)
	case res == 0:
		return domain.Errorf(domain.ENOTFOUND, "lock %q is not held", name)
	case res < 0:
		return domain.Errorf(domain.ECONFLICT, "lock %q changed hands since you looked; nothing was released: look again", name)
	}
	if err := l.rdb.SRem(ctx, l.keys.LockIndex(), name).Err(); err != nil {
		return store.OpError("locks.Locks.ForceRelease", err)
	}
	return nil
}

func (l *Locks) Inspect(ctx context.Context, name string) (domain.LockInfo, error) {
	if err := domain.ValidateKeyName("lock", name); err != nil {
		return domain.LockInfo{}, err
	}
	pipe := l.rdb.Pipeline()
	read := planLockInfo(ctx, pipe, l.keys, name)
	if _, err := pipe.Exec(ctx); err != nil {
		return domain.LockInfo{}, store.OpError("locks.Locks.Inspect", err)
	}
	info, held := read()
	if !held {
		return domain.LockInfo{}, domain.Errorf(domain.ENOTFOUND, "lock %q is not held", name)
	}
	return info, nil
}

// List reads the locks held now, in two round trips: the index of zpulse's own locks, then
// every lock it names or discovery found (its snapshot, not advanced: a lock another service
// took shows once discovery's own loop found it).
func (l *Locks) List(ctx context.Context) (domain.HeldLocks, error) {
	indexed, err := l.rdb.SMembers(ctx, l.keys.LockIndex()).Result()
	if err != nil && !store.IndexOfAnotherType(l.rdb, l.keys.LockIndex(), err) {
		return domain.HeldLocks{}, store.OpError("locks.Locks.List", err)
	} else if err == nil {
		store.IndexReadOK(l.rdb, l.keys.LockIndex())
	}
	names := l.found.Names(store.KindLock)
	for _, n := range indexed {
		if domain.ValidateKeyName("lock", n) == nil {
			names = append(names, n)
		}
	}
	pipe := l.rdb.Pipeline()
	read := planHeld(ctx, pipe, l.keys, names)
	if err := store.Exec(ctx, l.rdb, pipe); err != nil {
		return domain.HeldLocks{}, store.OpError("locks.Locks.List", err)
	}
	out, _ := read()
	return out, nil
}

// planLockInfo adds the reads of one lock on pipe. None of them fails whatever type the
// lock key has (MGET answers nil for a non-string), so a foreign lock never breaks the
// pipeline it shares with other topics. The decoder reports whether the lock is held.
// PEXPIRETIME (Redis 7) gives the absolute expiry in one command, so it reads the same from
// tick to tick until the lease changes.
func planLockInfo(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, name string) func() (domain.LockInfo, bool) {
	key := keys.Lock(name)
	val := pipe.MGet(ctx, key)
	typ := pipe.Type(ctx, key)
	pttl := pipe.PTTL(ctx, key)
	at := pipe.PExpireTime(ctx, key)
	meta := pipe.HMGet(ctx, keys.LockMeta(name), "owner", "holds", "ttl_ms", "watchdog", "reentrant", "fence")
	return func() (domain.LockInfo, bool) {
		if typ.Val() == "none" || typ.Val() == "" {
			return domain.LockInfo{}, false
		}
		info := domain.LockInfo{Lock: name, Type: typ.Val(), Holds: 1, RemainingMs: -1}
		if v := val.Val(); len(v) == 1 {
			info.Token, _ = v[0].(string)
		}
		// PTTL answers a duration in ms; go-redis turns -1 (no expiry) into -1ns.
		if d := pttl.Val(); d >= 0 {
			info.RemainingMs = d.Milliseconds() / 100 * 100
		}
		// PEXPIRETIME answers epoch ms, -1 for no expiry and -2 for no key (go-redis: as ns).
		if ms := at.Val().Milliseconds(); ms > 0 {
			info.ExpiresAtMs = ms
		}
		m := meta.Val()
		if len(m) == 6 && info.Token != "" && m[0] == info.Token {
			info.Holds = max(parseInt(m[1]), 1)
			info.LeaseMs = parseInt(m[2])
			info.Watchdog = m[3] == "1"
			info.Reentrant = m[4] == "1"
			info.Fence = parseInt(m[5])
		}
		return info, true
	}
}

func parseInt(v any) int64 {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func BoolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func validateNameToken(name, token string) error {
	if err := domain.ValidateName("lock", name); err != nil {
		return err
	}
	return domain.ValidateToken("token", token)
}
