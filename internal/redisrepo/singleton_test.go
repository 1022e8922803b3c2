package redisrepo

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redistest"
)

// When the instance running a singleton loop dies (its client closes: no renewal, no
// release), another instance runs the loop, with the production lease and retry; never both
// at once: the dead holder's loop is told its lease ran out before Redis lets the lock go.
// The new term's fence is higher, and the reap script refuses the old one. How soon is
// logged beside SingletonTakeover (the lease plus a campaign's wait, the README's bound);
// the test waits for the event, four times that bound guarding against a hang only, since a
// loaded machine's timers may run late.
func TestSingletonTakeover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := redistest.DB(t).Options().DB // a database of its own, flushed; each instance dials it
	addr := redistest.Shared().Addr
	type term struct {
		instance string
		fence    int64
		at       time.Time
	}
	var (
		running, most atomic.Int64
		mu            sync.Mutex
		ended         time.Time // when the first term's loop saw its context end
	)
	terms := make(chan term, 4)
	type instance struct {
		rdb  *redis.Client
		svc  *Services
		stop context.CancelFunc
		done sync.WaitGroup
	}
	start := func(name string) *instance {
		in := &instance{rdb: redis.NewClient(&redis.Options{Addr: addr, DB: db})}
		t.Cleanup(func() { in.rdb.Close() })
		in.svc = openTest(t, in.rdb, nil)
		ictx, stop := context.WithCancel(ctx)
		in.stop = stop
		in.done.Go(func() { in.svc.Locks.Watchdog().Run(ictx) })
		in.done.Go(func() {
			_ = in.svc.Singletons.Run(ictx, "queue-reaper", func(ctx context.Context, fence int64) error {
				if n := running.Add(1); n > most.Load() {
					most.Store(n)
				}
				terms <- term{name, fence, time.Now()}
				err := in.svc.Queues.RunReaper(ctx, 50*time.Millisecond, fence, nil)
				mu.Lock()
				if ended.IsZero() {
					ended = time.Now()
				}
				mu.Unlock()
				running.Add(-1)
				return err
			})
		})
		t.Cleanup(func() { stop(); in.done.Wait() })
		return in
	}
	nextTerm := func(what string) term {
		t.Helper()
		select {
		case tm := <-terms:
			return tm
		case <-time.After(4 * locks.SingletonTakeover):
			t.Fatalf("waited %v for %s", 4*locks.SingletonTakeover, what)
			return term{}
		}
	}

	a := start("a")
	if _, err := a.svc.Queues.Enqueue(context.Background(), "mail", domain.NewJob{ID: "j", Priority: 1, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	first := nextTerm("a's term")
	b := start("b") // stands by: a holds the lock
	if first.instance != "a" || a.svc.Singletons.Timings().TTL != locks.SingletonLease {
		t.Fatalf("first term %+v with lease %v; want a's, with SingletonLease", first, a.svc.Singletons.Timings().TTL)
	}

	a.rdb.Close() // a dies: its watchdog can neither renew nor release
	died := time.Now()
	second := nextTerm("b to take over")
	takeover := second.at.Sub(died)
	mu.Lock()
	firstEnded := ended
	mu.Unlock()
	t.Logf("the holder died; another instance ran the loop %v later (bound SingletonTakeover = %v); the dead holder's loop stopped %v after its death",
		takeover.Round(time.Millisecond), locks.SingletonTakeover, firstEnded.Sub(died).Round(time.Millisecond))
	if second.instance != "b" || second.fence <= first.fence {
		t.Fatalf("second term %+v after %+v; want b's with a higher fence", second, first)
	}
	if most.Load() != 1 || firstEnded.IsZero() || !firstEnded.Before(second.at) {
		t.Fatalf("%d loops ran at once (the dead holder's loop ended at %v, the next began at %v); want one", most.Load(), firstEnded, second.at)
	}

	// The new reaper's fence is on the queue; the dead holder's is refused from now on.
	err := redistest.Poll(10*time.Second, func() error {
		if f, err := b.rdb.Get(ctx, "{queue:mail}:reaper").Int64(); err != nil || f != second.fence {
			return fmt.Errorf("the queue's reaper fence is %d (%v), want %d", f, err, second.fence)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.svc.Queues.Reap(ctx, first.fence); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("a reap with the dead holder's fence = %v, want ECONFLICT", err)
	}
}
