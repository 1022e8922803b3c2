package limiters

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// 16 goroutines × 1,000 checks against 100 a second, with the time from Redis TIME: no window
// of any algorithm admits more than it promises, checked from the recorded admissions.
func TestConcurrentChecksKeepTheirPromise(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	l, _ := openLimiters(rdb, nil) // Redis TIME
	ctx := context.Background()
	for _, p := range policies100("") {
		if _, err := l.SetPolicy(ctx, p); err != nil {
			t.Fatal(err)
		}
		t.Run(string(p.Algorithm), func(t *testing.T) {
			const workers, checks = 16, 1000
			var (
				mu       sync.Mutex
				admitted []int64
				rejected int
				wg       sync.WaitGroup
			)
			errs := make(chan error, workers)
			for range workers {
				wg.Go(func() {
					for range checks {
						r, err := l.Allow(ctx, p.Name, "hot")
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						if r.Allowed {
							admitted = append(admitted, r.AtMs)
						} else {
							rejected++
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			slices.Sort(admitted)
			span := admitted[len(admitted)-1] - admitted[0]
			t.Logf("%s: %d admitted, %d rejected over %d ms", p.Algorithm, len(admitted), rejected, span)
			if len(admitted) < 100 || rejected == 0 || len(admitted)+rejected != workers*checks {
				t.Fatalf("admitted %d, rejected %d: the test did not push the limit", len(admitted), rejected)
			}
			if v := promiseViolation(p, admitted); v != "" {
				t.Error(v)
			}
		})
	}
}

// promiseViolation checks admission times (epoch ms, sorted) against what the policy
// promises, and describes the first breach.
func promiseViolation(p domain.LimitPolicy, at []int64) string {
	perWindow := func() string {
		counts := map[int64]int64{}
		for _, t := range at {
			counts[t/p.WindowMs]++
		}
		for w, n := range counts {
			if n > p.Limit {
				return fmt.Sprintf("%d admitted in the fixed window starting at %d, limit %d", n, w*p.WindowMs, p.Limit)
			}
		}
		return ""
	}
	switch p.Algorithm {
	case domain.SlidingLog: // any window (t-W, t] holds at most Limit
		for i := 0; i+int(p.Limit) < len(at); i++ {
			if at[i+int(p.Limit)]-at[i] < p.WindowMs {
				return fmt.Sprintf("%d admitted between %d and %d, less than the window %d ms apart", p.Limit+1, at[i], at[i+int(p.Limit)], p.WindowMs)
			}
		}
	case domain.FixedWindow:
		return perWindow()
	case domain.SlidingCounter: // every admission kept previous×weight + current ≤ limit
		if v := perWindow(); v != "" {
			return v
		}
		counts := map[int64]float64{}
		for _, t := range at {
			counts[t/p.WindowMs]++
		}
		for i, t := range at {
			if i+1 < len(at) && at[i+1] == t {
				continue // check the last admission of each ms, which saw all the others
			}
			w := t / p.WindowMs
			var cur float64
			for _, u := range at[:i+1] {
				if u/p.WindowMs == w {
					cur++
				}
			}
			weight := float64(p.WindowMs-(t-w*p.WindowMs)) / float64(p.WindowMs)
			if est := counts[w-1]*weight + cur; est > float64(p.Limit)+1e-9 {
				return fmt.Sprintf("at %d the estimate with the admitted request is %.3f, over %d", t, est, p.Limit)
			}
		}
	case domain.TokenBucket: // any interval [a, b] holds at most burst + rate×(b−a)
		for i := range at {
			for j := i; j < len(at); j++ {
				if n, most := float64(j-i+1), float64(p.Burst)+p.RatePerS*float64(at[j]-at[i])/1000; n > most+1e-9 {
					return fmt.Sprintf("%v admitted between %d and %d, at most %.2f allowed", n, at[i], at[j], most)
				}
			}
		}
	}
	return ""
}

// The fixed window's weakness, shown: the limit at the end of one window and again at the
// start of the next, 200 requests in 20 s against 100 in 1,000 s. The sliding log admits none
// of the second burst; the counter and the bucket admit what they promise.
//
// The scenario is the one of 100 a second and 20 ms, at a thousand times the scale: Redis
// expires the limiters' keys in its own time, which the test clock does not govern, and at
// a second's window a key lived 10 ms (the fixed window's, at 10 ms before its end; the
// bucket's, 11 ms after a burst's first request), so a make test stalled that long found a
// bucket full again and admitted 103. At this scale each key lives 10 s at least.
func TestBoundaryBurst(t *testing.T) {
	t.Parallel()
	l, _, clock := newTestLimiters(t)
	ctx := context.Background()
	const window = 1000 * time.Second
	secondBurst := map[domain.Algorithm]int{}
	for _, p := range []domain.LimitPolicy{
		{Name: "log", Algorithm: domain.SlidingLog, Limit: 100, WindowMs: window.Milliseconds()},
		{Name: "fixed", Algorithm: domain.FixedWindow, Limit: 100, WindowMs: window.Milliseconds()},
		{Name: "counter", Algorithm: domain.SlidingCounter, Limit: 100, WindowMs: window.Milliseconds()},
		{Name: "bucket", Algorithm: domain.TokenBucket, RatePerS: 0.1, Burst: 100},
	} {
		l.SetPolicy(ctx, p)
		var at []int64
		clock.Set(t0.Add(window - 10*time.Second)) // 10 s before a boundary (t0 is on one)
		burst := func() (n int) {
			for range 100 {
				if r := mustAllow(t, l, p.Name, "b"); r.Allowed {
					at = append(at, r.AtMs)
					n++
				}
			}
			return n
		}
		if n := burst(); n != 100 {
			t.Fatalf("%s: first burst admitted %d, want 100", p.Name, n)
		}
		clock.Advance(20 * time.Second) // 10 s after it
		secondBurst[p.Algorithm] = burst()
		v := promiseViolation(domain.LimitPolicy{Algorithm: domain.SlidingLog, Limit: 100, WindowMs: window.Milliseconds()}, at)
		if p.Algorithm == domain.FixedWindow && v == "" {
			t.Errorf("fixed window: no double burst across the boundary")
		}
		if p.Algorithm == domain.SlidingLog && v != "" {
			t.Errorf("sliding log: %s", v)
		}
		if v := promiseViolation(p, at); v != "" {
			t.Errorf("%s broke its own promise: %s", p.Name, v)
		}
	}
	want := map[domain.Algorithm]int{domain.FixedWindow: 100, domain.SlidingLog: 0, domain.SlidingCounter: 1, domain.TokenBucket: 2}
	if fmt.Sprint(secondBurst) != fmt.Sprint(want) {
		t.Errorf("second burst admitted %v, want %v", secondBurst, want)
	}
}
