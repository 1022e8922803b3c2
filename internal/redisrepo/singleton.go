package redisrepo

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
)

// Singletons run loops that must run in one zpulse instance at a time, on Locks with the
// watchdog: the lock of a loop named "queue-reaper" is lock:zpulse:queue-reaper, its token
// says which instance holds it ("host:pid:random"), so the /locks page shows who runs what.
//
//	go singletons.Run(ctx, "queue-reaper", func(ctx context.Context) error {
//		for ctx.Err() == nil { reapOnce(ctx); sleep(ctx, time.Second) }
//		return nil
//	})
type Singletons struct {
	locks *Locks
	keys  Keys
	log   *slog.Logger
	owner string // this instance, in tokens

	// TTL is each lock's lease, renewed every TTL/3: an instance that dies is replaced
	// within TTL + Retry.
	TTL time.Duration
	// Retry is how often an instance that does not hold the lock tries again (jittered
	// ±20%, so instances started together do not stay in step).
	Retry time.Duration
}

var _ domain.Singleton = (*Singletons)(nil)

// newSingletons returns singleton runners on locks, with a 15 s lease and a 5 s retry.
func newSingletons(locks *Locks, keys Keys, log *slog.Logger) *Singletons {
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
	return &Singletons{locks: locks, keys: keys, log: log, owner: fmt.Sprintf("%.40s:%d", host, os.Getpid()), TTL: 15 * time.Second, Retry: 5 * time.Second}
}

func (s *Singletons) Run(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	lock := s.keys.SingletonLock(name)
	if err := domain.ValidateName("singleton lock", lock); err != nil {
		return err
	}
	waiting := false
	for {
		// A fresh token per term: a term that was lost can never renew the next one.
		h, err := s.locks.hold(ctx, lock, domain.LockOptions{TTL: s.TTL}, s.owner+":"+NewToken()[:8])
		switch {
		case err == nil:
			s.log.Info("running a singleton loop in this instance", "loop", name, "lock", lock, "fencing_token", h.Lease().Fence)
			waiting = false
			ferr := fn(h.Context())
			lost := errors.Is(context.Cause(h.Context()), domain.ErrLockLost)
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			_ = h.Release(rctx) // ECONFLICT when lost; otherwise it expires within a TTL
			cancel()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !lost {
				return ferr
			}
			s.log.Warn("a singleton loop lost its lock and stopped; campaigning again", "loop", name, "cause", context.Cause(h.Context()))
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
		jitter := time.Duration(float64(s.Retry) * (0.8 + 0.4*rand.Float64()))
		t := time.NewTimer(jitter)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
