package live

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zpulse/zpulse/internal/domain"
)

// manualClock is a Clock whose timers fire only when Advance moves the time past them.
type manualClock struct {
	*domain.ManualClock
	mu     sync.Mutex
	timers []manualTimer
}

type manualTimer struct {
	at time.Time
	ch chan time.Time
}

func newManualClock() *manualClock {
	return &manualClock{ManualClock: domain.NewManualClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))}
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, manualTimer{c.Now().Add(d), ch})
	return ch
}

// Advance moves the time by d and fires the timers that are due; it returns how many fired.
func (c *manualClock) Advance(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ManualClock.Advance(d)
	now, fired, kept := c.Now(), 0, c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- now
		fired++
	}
	c.timers = kept
	return fired
}

// runManual starts w.Run on a manual clock and returns the clock and a function that waits
// until the loop has dealt with n wake-ups.
func runManual(t *testing.T, w *Watcher) (*manualClock, func(n int)) {
	clock := newManualClock()
	WithClock(clock)(w)
	handled := make(chan struct{})
	w.handled = func() { handled <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return clock, func(n int) {
		t.Helper()
		for range n {
			select {
			case <-handled:
			case <-time.After(5 * time.Second): // a guard against a hang
				t.Fatal("the watcher did not wake up within 5s")
			}
		}
	}
}

// 1,000 writes in one second of the watcher's time, each nudging it: every viewer sees the
// last value, gets at most one frame per minimum gap, and nobody is dropped.
func TestNudgeFloodIsCoalesced(t *testing.T) {
	for _, gap := range []time.Duration{DefaultMinGap, 100 * time.Millisecond} {
		t.Run(gap.String(), func(t *testing.T) { testNudgeFlood(t, gap) })
	}
}

func testNudgeFlood(t *testing.T, gap time.Duration) {
	w, src, _, hub, subscribe := newWatcher(t)
	w.interval = 250 * time.Millisecond
	WithMinGap(gap)(w)
	const viewers, writes = 20, 1000
	conns := make([]*websocket.Conn, viewers)
	for i := range conns {
		conns[i] = subscribe("t")
	}
	clock, waitHandled := runManual(t, w)
	start := clock.Now()
	for i := range writes {
		src.set("t", i)
		w.Nudge()
		waitHandled(1)
		waitHandled(clock.Advance(time.Second / writes))
	}
	waitHandled(clock.Advance(gap)) // the tick that waited for its gap
	elapsed := clock.Now().Sub(start)
	maxFrames := int(elapsed/gap) + 1

	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			frames := 0
			for {
				msg := read(t, c)
				frames++
				if msg == fmt.Sprintf("t=%d", writes-1) {
					break
				}
			}
			if i == 0 {
				t.Logf("viewer 0: %d frames in %v of watcher time (at most %d allowed)", frames, elapsed, maxFrames)
			}
			if frames > maxFrames {
				t.Errorf("viewer %d got %d frames in %v, want at most one per %v (%d)", i, frames, elapsed, gap, maxFrames)
			}
		})
	}
	wg.Wait()
	if n := testutil.ToFloat64(hub.metrics.drops); n != 0 {
		t.Errorf("%v viewers dropped", n)
	}
	if n := hubSubscribers(hub, "t"); n != viewers {
		t.Errorf("%d of %d viewers still subscribed", n, viewers)
	}
}

// After a quiet gap a nudge ticks at once; a nudge within the gap waits for its end, and the
// periodic tick that falls due meanwhile merges into the same tick, which polls as Periodic.
func TestNudgeWaitsForTheGapOnlyWhenNeeded(t *testing.T) {
	w, src, r, _, subscribe := newWatcher(t)
	w.interval = 250 * time.Millisecond
	subscribe("t")
	clock, waitHandled := runManual(t, w)
	src.set("t", 1)
	w.Nudge()
	waitHandled(1)
	if r.count("t") != 1 {
		t.Fatalf("the first nudge rendered %d times, want 1 at once", r.count("t"))
	}
	src.set("t", 2)
	waitHandled(clock.Advance(10 * time.Millisecond))
	w.Nudge()
	waitHandled(1)
	if r.count("t") != 1 {
		t.Fatal("a nudge 10 ms after a tick ticked before the 50 ms gap")
	}
	waitHandled(clock.Advance(40 * time.Millisecond))
	if r.count("t") != 2 {
		t.Fatalf("rendered %d times at the gap's end, want 2", r.count("t"))
	}
	src.set("t", 3)
	waitHandled(clock.Advance(DefaultMinGap)) // quiet since the last tick
	w.Nudge()
	waitHandled(1)
	if r.count("t") != 3 {
		t.Errorf("a nudge after a quiet gap did not tick at once (%d renders)", r.count("t"))
	}
	src.set("t", 4)
	waitHandled(clock.Advance(150 * time.Millisecond)) // the periodic tick at 250 ms
	if r.count("t") != 4 {
		t.Errorf("the periodic tick did not publish the change (%d renders)", r.count("t"))
	}
	waitHandled(clock.Advance(230 * time.Millisecond))
	src.set("t", 5)
	w.Nudge()
	waitHandled(1) // 480 ms: a nudge's tick, which publishes
	src.set("t", 6)
	waitHandled(clock.Advance(20 * time.Millisecond)) // 500 ms: the periodic tick, within the gap
	waitHandled(clock.Advance(30 * time.Millisecond)) // 530 ms: the gap's end, one tick for both
	if r.count("t") != 6 {
		t.Errorf("the periodic tick within a gap did not tick at the gap's end (%d renders)", r.count("t"))
	}
	// Only the interval's tick polls as Periodic, also when it merged with a nudge's: work
	// bound to the poll cadence stays there however many writes nudge.
	src.mu.Lock()
	defer src.mu.Unlock()
	if got, want := fmt.Sprint(src.periodic), "[false false false true false true]"; got != want {
		t.Errorf("Periodic of each poll = %s, want %s", got, want)
	}
}

// A periodic tick holds the next one back by a tenth of the gap only, whether it published
// nothing (an idle poll) or what moved since the last poll (a limiter's quota refilling): a
// change right after it goes out at once, not at the gap's end, which is what keeps another
// service's write within a few milliseconds of the screen under keyspace notifications. (A
// periodic tick that published held the whole gap, and a new limiter client reached the
// screen up to 50 ms late when it landed just after a poll that moved a client's row.) A
// tick a nudge asked for, that published, still holds the whole gap.
func TestAPeriodicTickHoldsBackATenthOfTheGap(t *testing.T) {
	for _, moved := range []bool{false, true} {
		t.Run(map[bool]string{false: "idle", true: "publishing"}[moved], func(t *testing.T) {
			w, src, r, _, subscribe := newWatcher(t)
			w.interval = 250 * time.Millisecond
			subscribe("t")
			clock, waitHandled := runManual(t, w)
			v := 1
			src.set("t", v)
			w.Nudge()
			waitHandled(1)
			if moved {
				v++
				src.set("t", v)
			}
			waitHandled(clock.Advance(250 * time.Millisecond)) // the periodic tick
			if r.count("t") != v {
				t.Fatalf("rendered %d times, want %d (the periodic tick publishes what moved)", r.count("t"), v)
			}
			src.set("t", v+1)
			waitHandled(clock.Advance(DefaultMinGap / 10))
			w.Nudge()
			waitHandled(1)
			if r.count("t") != v+1 {
				t.Fatalf("a change %v after a periodic tick waited for the %v gap (%d renders)", DefaultMinGap/10, DefaultMinGap, r.count("t"))
			}
			src.set("t", v+2)
			waitHandled(clock.Advance(DefaultMinGap / 10))
			w.Nudge()
			waitHandled(1)
			if r.count("t") != v+1 {
				t.Fatal("a change right after a nudge's tick that published did not wait for the gap")
			}
		})
	}
}

// heldLock is a snapshot with a part no render shows, as a held lock's PTTL: it differs read
// after read while the fragment stays the same.
type heldLock struct{ shown, pttlMs int }

func (h heldLock) String() string { return strconv.Itoa(h.shown) }

// A tick whose snapshots changed but render as before sends nothing, so like an idle tick it
// holds the next one back by a tenth of the gap only: a change right after it goes out at
// once. (Counted as published, it held the whole gap, and another service's new lock reached
// the screen 10–54 ms late when it landed just after a periodic poll of the locks.)
func TestATickThatSentNothingHoldsBackATenthOfTheGap(t *testing.T) {
	w, src, r, _, subscribe := newWatcher(t)
	w.interval = 250 * time.Millisecond
	subscribe("t")
	clock, waitHandled := runManual(t, w)
	src.set("t", heldLock{shown: 1, pttlMs: 900})
	w.Nudge()
	waitHandled(1)
	src.set("t", heldLock{shown: 1, pttlMs: 800})
	waitHandled(clock.Advance(250 * time.Millisecond)) // the periodic tick: rendered again, the same
	if r.count("t") != 2 {
		t.Fatalf("rendered %d times, want 2 (the periodic tick saw a new snapshot)", r.count("t"))
	}
	src.set("t", heldLock{shown: 2, pttlMs: 800})
	waitHandled(clock.Advance(DefaultMinGap / 10))
	w.Nudge()
	waitHandled(1)
	if r.count("t") != 3 {
		t.Fatalf("a change %v after a tick that sent nothing waited for the %v gap (%d renders)", DefaultMinGap/10, DefaultMinGap, r.count("t"))
	}
}
