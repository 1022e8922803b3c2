package locks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Singletons run loops that must run in one zpulse instance at a time, on Locks with the
// watchdog: the lock of a loop named "queue-reaper" is lock:zpulse:queue-reaper, its token
// says which instance holds it ("host:pid:random"), so the /locks page shows who runs what.
//
//	go singletons.Run(ctx, "queue-reaper", func(ctx context.Context, fence int64) error {
//		return queues.RunReaper(ctx, time.Second, fence, nil) // each reap script checks fence
//	})
//
// Handover: the lease is short (SingletonLease) and renewed by the watchdog every third of
// it, and an instance on standby campaigns every SingletonRetry (±20%), so when the holder's
// process dies another instance runs the loop within SingletonTakeover of the death. Never
// two at once: the holder's watchdog ends its loop's context when the lease it last
// confirmed runs out by the local clock (less a drift allowance), before Redis lets the lock
// go; and work that could outlive that (a process paused past its lease) is fenced.
type Singletons struct {
	locks   *Locks
	keys    store.Keys
	log     *slog.Logger
	owner   string // this instance, in tokens
	timings SingletonTimings
}

// SingletonTimings are a singleton lock's lease and how often an instance that does not hold
// it campaigns; zero fields are SingletonLease and SingletonRetry (tests shorten them).
type SingletonTimings struct {
	// TTL is each lock's lease, renewed every TTL/3: an instance that dies is replaced
	// within TTL + 1.2 × Retry.
	TTL time.Duration
	// Retry is how often an instance that does not hold the lock tries again (jittered
	// ±20%, so instances started together do not stay in step).
	Retry time.Duration
}

// Singleton timings. The lease is short so that a dead holder is replaced in seconds; it is
// renewed every second, so it survives two missed renewals (a Redis failover, a GC pause)
// before the loop stops and campaigns again.
const (
	SingletonLease = 3 * time.Second
	SingletonRetry = time.Second
	// SingletonTakeover bounds how long after a holder's death another instance runs its
	// loop: the lease left at the last renewal (at most SingletonLease) plus the longest
	// wait between two campaigns (SingletonRetry + 20% jitter). TestSingletonTakeover
	// measures it.
	SingletonTakeover = SingletonLease + SingletonRetry*12/10
)

var _ domain.Singleton = (*Singletons)(nil)

// NewSingletons returns singleton runners on locks, with timings' lease and retry.
func NewSingletons(locks *Locks, keys store.Keys, log *slog.Logger, timings SingletonTimings) *Singletons {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r <= ' ' || r > '~' {
			return -1
		}
		return r
	}, host)
	if host == "" {
		host = "zpulse"
	}
	if timings.TTL == 0 {
		timings.TTL = SingletonLease
	}
	if timings.Retry == 0 {
		timings.Retry = SingletonRetry
	}
	return &Singletons{locks: locks, keys: keys, log: log, owner: fmt.Sprintf("%.40s:%d", host, os.Getpid()), timings: timings}
}

// Timings are the lease and retry the runners use.
func (s *Singletons) Timings() SingletonTimings { return s.timings }

func (s *Singletons) Run(ctx context.Context, name string, fn func(ctx context.Context, fence int64) error) error {
	lock := s.keys.SingletonLock(name)
	if err := domain.ValidateName("singleton lock", lock); err != nil {
		return err
	}
	waiting := false
	for {
		// A fresh token per term: a term that was lost can never renew the next one.
		// No wait for replicas, whatever WaitReplicas says: a singleton must keep running while
		// a replica is down; the reaper is fenced against a second holder after a failover.
		h, err := s.locks.hold(ctx, lock, domain.LockOptions{TTL: s.timings.TTL}, s.owner+":"+NewToken()[:8], store.ReplicaWait{})
		switch {
		case err == nil:
			s.log.Info("running a singleton loop in this instance", "loop", name, "lock", lock, "fencing_token", h.Lease().Fence)
			waiting = false
			ferr := fn(h.Context(), h.Lease().Fence)
			// Lost: the watchdog says so, or the work found a newer term's fence.
			lost := errors.Is(context.Cause(h.Context()), domain.ErrLockLost) || errors.Is(ferr, domain.ErrLockLost)
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			_ = h.Release(rctx) // ECONFLICT when lost; otherwise it expires within a TTL
			cancel()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !lost {
				return ferr
			}
			cause := context.Cause(h.Context())
			if errors.Is(ferr, domain.ErrLockLost) {
				cause = ferr
			}
			s.log.Warn("a singleton loop lost its lock and stopped; campaigning again", "loop", name, "cause", cause)
		case ctx.Err() != nil:
			return ctx.Err()
		case domain.ErrorCode(err) == domain.ECONFLICT:
			if !waiting {
				s.log.Info("a singleton loop runs in another instance; standing by", "loop", name)
				waiting = true
			}
		default:
			s.log.Warn("cannot campaign for a singleton loop's lock; retrying", "loop", name, "err", err)
		}
		jitter := time.Duration(float64(s.timings.Retry) * (0.8 + 0.4*rand.Float64()))
		t := time.NewTimer(jitter)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
