package redisrepo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A Redis restart while the watchdog runs. Defined behaviour (see Watchdog):
//   - Redis comes back empty before the lease ran out: the next renewal finds the lock gone
//     and the holder is told at once;
//   - Redis stays down: the holder is told that the lease it last confirmed ran out,
//     because from then on another owner may hold the lock.
func TestWatchdogAcrossARedisRestart(t *testing.T) {
	// Serial: it sets go-redis's logger, which is the whole process's.
	redis.SetLogger(quietLogger{}) // go-redis logs every refused dial
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb, err := Connect("redis://" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	lk := openTest(t, rdb, nil).Locks
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { lk.Watchdog().Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	const ttl = 300 * time.Millisecond
	t.Run("back empty", func(t *testing.T) {
		// A lease long enough for a restart on a busy machine (one of 300 ms ran out first
		// there, which is the other case): Redis is back, empty, before it ends.
		h, err := lk.Hold(ctx, "job", domain.LockOptions{TTL: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		srv.Stop()
		if err := srv.Restart(); err != nil {
			t.Fatal(err)
		}
		cause := waitDone(t, h, 10*time.Second) // a guard against a hang
		if !errors.Is(cause, domain.ErrLockLost) || !strings.Contains(cause.Error(), "Redis lost it") {
			t.Errorf("cause = %v, want ErrLockLost saying the lock is gone", cause)
		}
	})
	t.Run("stays down", func(t *testing.T) {
		h, err := lk.Hold(ctx, "job", domain.LockOptions{TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		srv.Stop()
		stopped := time.Now()
		cause := waitDone(t, h, 10*time.Second) // a guard against a hang
		t.Logf("told %v after Redis stopped (TTL %v)", time.Since(stopped).Round(time.Millisecond), ttl)
		// When is locks' TestWatchdogTellsTheHolderWhenItsLeaseRunsOutWithRedisDown, by the
		// watchdog's clock: at the lease's end, not a renewal later.
		if !errors.Is(cause, domain.ErrLockLost) || !strings.Contains(cause.Error(), "lease ran out before it could be renewed") {
			t.Errorf("cause = %v, want ErrLockLost saying the lease ran out", cause)
		}
		if err := srv.Restart(); err != nil {
			t.Fatal(err)
		}
	})
}

// quietLogger drops go-redis's messages.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// waitDone returns why h ended, failing the test unless it ends within within.
func waitDone(t *testing.T, h *locks.Held, within time.Duration) error {
	t.Helper()
	select {
	case <-h.Context().Done():
		return context.Cause(h.Context())
	case <-time.After(within):
		t.Fatalf("the holder was not told within %v", within)
		return nil
	}
}
