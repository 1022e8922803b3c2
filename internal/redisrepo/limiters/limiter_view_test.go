package limiters

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The page's numbers, computed in Go from the state, agree with the scripts' Peek.
func TestViewAgreesWithPeek(t *testing.T) {
	t.Parallel()
	l, rdb, clock := newTestLimiters(t)
	ctx := context.Background()
	policies := []domain.LimitPolicy{
		{Name: "log", Algorithm: domain.SlidingLog, Limit: 5, WindowMs: 10_000},
		{Name: "fixed", Algorithm: domain.FixedWindow, Limit: 5, WindowMs: 10_000},
		{Name: "counter", Algorithm: domain.SlidingCounter, Limit: 5, WindowMs: 10_000},
		{Name: "bucket", Algorithm: domain.TokenBucket, RatePerS: 0.7, Burst: 5},
	}
	compared := 0
	for _, p := range policies {
		l.SetPolicy(ctx, p)
		clock.Set(t0.Add(8 * time.Second))
		for i := range 9 {
			mustAllow(t, l, p.Name, "c")
			clock.Advance(time.Duration(300+i*400) * time.Millisecond)
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for _, step := range []time.Duration{0, 700 * time.Millisecond, 3 * time.Second, 6 * time.Second} {
			clock.Advance(step)
			peek, err := l.Peek(ctx, p.Name, "c")
			if err != nil {
				t.Fatal(err)
			}
			view, err := l.View(ctx, p.Name)
			if err != nil {
				t.Fatal(err)
			}
			if len(view.Clients) != 1 {
				if peek.Remaining == peek.Limit {
					continue // idle: not active any more
				}
				t.Fatalf("%s: view has clients %+v", p.Name, view.Clients)
			}
			u := view.Clients[0]
			compared++
			if u.Remaining != peek.Remaining || u.Used != u.Limit-u.Remaining && p.Algorithm != domain.SlidingCounter ||
				u.RetryAfterMs != CeilSecond(peek.RetryAfterMs) || u.ResetMs != CeilSecond(peek.ResetMs) {
				t.Errorf("%s at +%v: view %+v, peek %+v", p.Name, clock.Now().Sub(t0), u, peek)
			}
		}
	}
	if compared < 12 {
		t.Errorf("compared %d views with Peek, want at least 12", compared)
	}
	if k := rdb.Keys(ctx, "zpulse:limiter:{log}:events:c").Val(); len(k) != 1 {
		t.Errorf("events list missing: %v", k)
	}
}

// The view lists zpulse's clients and those other services wrote, with their timelines and
// the per-second counts.
func TestViewAndDiscovery(t *testing.T) {
	t.Parallel()
	l, found, rdb, clock := newLimitersFound(t)
	ctx := context.Background()
	for range 5 {
		mustAllow(t, l, "default", "c-42")
	}
	// Another service's client, on the article's key.
	rdb.ZAdd(ctx, "rate:c-77", redis.Z{Score: float64(t0.UnixMilli() - 2000), Member: "u1"}, redis.Z{Score: float64(t0.UnixMilli() - 1000), Member: "u2"})
	rdb.ZAdd(ctx, "rate:c-old", redis.Z{Score: float64(t0.UnixMilli() - 3_600_000), Member: "u1"})
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	view, err := l.View(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Clients) != 2 || view.Clients[0].Client != "c-42" || view.Clients[1].Client != "c-77" {
		t.Fatalf("clients = %+v, want c-42 and c-77 (c-old is idle)", view.Clients)
	}
	c42, c77 := view.Clients[0], view.Clients[1]
	if c42.Used != 3 || c42.Remaining != 0 || !c42.Full() || len(c42.Events) != 5 || c42.ResetMs != 10_000 {
		t.Errorf("c-42 = %+v, want 3 used of 3 and 5 events (3 allowed, 2 rejected)", c42)
	}
	var allowed int
	for _, e := range c42.Events {
		if e.Allowed {
			allowed++
		}
	}
	if allowed != 3 {
		t.Errorf("c-42 events %+v, want 3 allowed", c42.Events)
	}
	if c77.Used != 2 || c77.Remaining != 1 || len(c77.Events) != 2 {
		t.Errorf("c-77 = %+v", c77)
	}
	if len(view.Seconds) != 1 || view.Seconds[0] != (domain.SecondCount{Sec: t0.Unix(), Allowed: 3, Rejected: 2}) {
		t.Errorf("seconds = %+v", view.Seconds)
	}
	if view.NowMs != t0.UnixMilli() || !view.Exists || view.Policy != domain.DefaultPolicy {
		t.Errorf("view = %+v", view)
	}
	// Eleven seconds later everything has left the window; the chart too, after a minute.
	clock.Advance(11 * time.Second)
	if v, _ := l.View(ctx, "default"); len(v.Clients) != 0 || len(v.Seconds) != 1 {
		t.Errorf("after the window: %+v", v)
	}
	clock.Advance(time.Minute)
	if v, _ := l.View(ctx, "default"); v.NowMs != 0 || len(v.Seconds) != 0 {
		t.Errorf("idle view = %+v, want NowMs 0 so it stops changing", v)
	}
	if v, err := l.View(ctx, "nothing"); err != nil || v.Exists {
		t.Errorf("unknown limiter view = %+v, %v", v, err)
	}
}

// Every script runs on miniredis too (the embedded Redis of `make run`), with the time from
// its TIME, which zpulse keeps setting.
func TestScriptsRunOnMiniredis(t *testing.T) {
	t.Parallel()
	m := miniredis.RunT(t)
	m.SetTime(t0)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()
	l, found := openLimiters(rdb, nil)
	ctx := context.Background()
	for _, p := range append(policies100(""), domain.DefaultPolicy) {
		if p.Name != "default" {
			if _, err := l.SetPolicy(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		for range p.Quota() + 1 {
			if r := mustAllow(t, l, p.Name, "m"); r.Allowed {
				n++
			} else if r.AtMs != t0.UnixMilli() {
				t.Errorf("%s: decided at %d, want miniredis's TIME %d", p.Name, r.AtMs, t0.UnixMilli())
			}
		}
		if n != int(p.Quota()) {
			t.Errorf("%s on miniredis: %d admitted, want %d", p.Name, n, p.Quota())
		}
		if _, err := l.Peek(ctx, p.Name, "m"); err != nil {
			t.Error(err)
		}
	}
	rdb.HSet(ctx, "rate:h", "f", "v")
	if _, err := l.Allow(ctx, "default", "h"); domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(domain.ErrorMessage(err), "holds a hash") {
		t.Errorf("miniredis: a hash at rate:h: %v, want wrong_type", err)
	}
	m.SetTime(t0.Add(10 * time.Second))
	if r := mustAllow(t, l, "default", "m"); !r.Allowed {
		t.Error("miniredis: the window did not slide with its clock")
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := l.View(ctx, "default"); err != nil || len(v.Clients) != 1 || v.Clients[0].Used != 1 {
		t.Errorf("view on miniredis: %+v, %v", v, err)
	}
}

// Another service's sliding-log client shows whatever its bytes: longer than the names zpulse
// creates, with spaces and non-ASCII (only braces are refused, as they would move keys).
func TestForeignClientOfAnyNameShows(t *testing.T) {
	t.Parallel()
	l, found, rdb, _ := newLimitersFound(t)
	ctx := context.Background()
	client := "玩家 " + strings.Repeat("x", 90)
	rdb.ZAdd(ctx, "rate:"+client, redis.Z{Score: float64(t0.UnixMilli() - 1000), Member: "u1"})
	if err := found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	view, err := l.View(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Clients) != 1 || view.Clients[0].Client != client || view.Clients[0].Used != 1 {
		t.Fatalf("clients = %+v, want the foreign client with 1 used", view.Clients)
	}
}

// A page's read of a limiter (Limiters.View) is two round trips, and the first reads only the
// head (the policy and the client list, 2 commands with the injected clock), not the whole
// view a second time: a client's view costs the second round trip's 6 commands (time, policy,
// clients, their count, two minutes of stats) plus the client's own reads.
func TestLimiterPageReadsTheViewOnce(t *testing.T) {
	t.Parallel()
	l, rdb, _ := newTestLimiters(t)
	ctx := context.Background()
	mustAllow(t, l, "default", "c-1")
	l.Flush(ctx)
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	view, err := l.View(ctx, "default")
	if err != nil || len(view.Clients) != 1 {
		t.Fatalf("view: %+v %v", view, err)
	}
	// Second round trip: policy, clients, count, two stats hashes, and the sliding log's three
	// reads plus the events list for c-1 (no TIME: the clock is injected).
	if want := 2 + 9; hook.Pipelines != 2 || hook.Commands != want {
		t.Errorf("%d pipelines, %d commands; want 2 and %d (the head once, then the view)", hook.Pipelines, hook.Commands, want)
	}
}
