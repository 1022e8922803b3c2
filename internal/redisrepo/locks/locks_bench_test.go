package locks

import (
	"fmt"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// BenchmarkLockAcquireRelease is one uncontended acquire plus its release (two scripts, with
// the index updates: three round trips).
func BenchmarkLockAcquireRelease(b *testing.B) {
	lk, _ := openLocks(redistest.DB(b), nil)
	for b.Loop() {
		l, err := lk.Acquire(ctx, "bench", domain.LockOptions{TTL: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lk.Release(ctx, "bench", l.Token); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLockContended is acquire + release of one lock by 8 goroutines per CPU at once:
// ns/op is the time per hand-over under contention (waiters queue at the gate).
func BenchmarkLockContended(b *testing.B) {
	lk, _ := openLocks(redistest.DB(b), nil)
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l, err := lk.Acquire(ctx, "hot", domain.LockOptions{TTL: time.Second, Wait: domain.MaxLockWait})
			if err != nil {
				b.Error(err)
				return
			}
			lk.Release(ctx, "hot", l.Token)
		}
	})
}

// BenchmarkWatchdogRenew is one watchdog round: every held lease falls due and is renewed,
// all in one pipeline.
func BenchmarkWatchdogRenew(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("leases=%d", n), func(b *testing.B) {
			rdb := redistest.DB(b)
			clock := domain.NewManualClock(epoch)
			lk, _ := openLocks(rdb, clock)
			for i := range n {
				if _, err := lk.Hold(ctx, fmt.Sprintf("job:%d", i), domain.LockOptions{TTL: 30 * time.Second}); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				clock.Advance(10 * time.Second)
				if renewed, _ := lk.Watchdog().RenewDue(ctx); renewed != n {
					b.Fatalf("renewed %d of %d", renewed, n)
				}
			}
		})
	}
}
