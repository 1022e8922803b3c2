package demo

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// The demo writes only under its own names, follows its switch, and stops cleanly, giving
// back its locks.
func TestDemoTraffic(t *testing.T) {
	rdb, svc := openServices(t)
	locks, limiters := svc.Locks, svc.Limiters
	s := Services{Leaderboards: svc.Leaderboards, Limiters: limiters, Locks: locks, Switch: svc.Demo, Queues: svc.Queues, Clock: redistest.ServerClock{}, Schedules: svc.Schedules}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go limiters.Run(ctx)
	if err := Seed(ctx, s); err != nil {
		t.Fatal(err)
	}
	if sc, err := svc.Schedules.Schedule(ctx, DemoSchedule.Name); err != nil || sc.Queue != "demo:emails" {
		t.Fatalf("the demo's schedule: %+v, %v", sc, err)
	}
	// rounds is unbuffered: a send returns once the previous round has finished and the
	// loop waits again, so the test knows exactly which rounds have run.
	rounds := make(chan time.Time)
	nudges := make(chan struct{}, 1000)
	done := make(chan struct{})
	go func() {
		run(ctx, s, rounds, func() { nudges <- struct{}{} }, slog.New(slog.NewTextHandler(io.Discard, nil)))
		close(done)
	}()
	for range 100 {
		rounds <- time.Now()
	}
	rounds <- time.Now() // the 100th round is over once this one has started
	if n := len(nudges); n != 101 && n != 100 {
		t.Fatalf("%d nudges after 100 rounds, want one per round", n)
	}
	// Paused: rounds make no traffic and nudge nobody.
	if err := s.Switch.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	rounds <- time.Now() // waits for the round under way, which may have acted
	drain(nudges)
	for range 10 {
		rounds <- time.Now()
	}
	rounds <- time.Now()
	if len(nudges) != 0 {
		t.Errorf("%d rounds ran while paused", len(nudges))
	}
	if err := s.Switch.SetPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	rounds <- time.Now()
	rounds <- time.Now()
	if len(nudges) == 0 {
		t.Error("no round ran once running again")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second): // a guard against a hang
		t.Fatal("the demo did not stop within 5s of its context ending")
	}
	for _, k := range rdb.Keys(context.Background(), "*").Val() {
		if !demoKey(k) {
			t.Errorf("the demo wrote %s, outside its own names", k)
		}
	}
	if n := len(rdb.Keys(context.Background(), "lock:demo:*").Val()); n != 0 {
		t.Errorf("%d demo locks still held after the demo stopped", n)
	}
	for _, b := range Boards {
		if n := rdb.ZCard(context.Background(), "leaderboard:"+b).Val(); n != int64(len(players)) {
			t.Errorf("%s has %d players, want %d", b, n, len(players))
		}
	}
	if n := rdb.ZCard(context.Background(), "{queue:demo:emails}:processing").Val() + rdb.ZCard(context.Background(), "queue:demo:emails").Val(); n == 0 {
		t.Error("the demo enqueued no emails")
	}
}

// A demo lock holder's pretend work ends by the clock the demo is given, not the machine's.
func TestDemoLocksFollowTheirClock(t *testing.T) {
	rdb, svc := openServices(t)
	ctx := context.Background()
	clock := domain.NewManualClock(redistest.ServerClock{}.Now())
	lease, err := svc.Locks.Acquire(ctx, Locks[0], domain.LockOptions{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]heldLock{Locks[0]: {token: lease.Token, until: clock.Now().Add(10 * time.Second)}}
	if err := lockTraffic(ctx, svc.Locks, held, clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, ok := held[Locks[0]]; !ok {
		t.Fatal("the lock was given back before its work ended")
	}
	clock.Advance(10*time.Second + time.Millisecond)
	if err := lockTraffic(ctx, svc.Locks, held, clock.Now()); err != nil {
		t.Fatal(err)
	}
	// The round may take a lock again, even this one, with a token of its own.
	if h, ok := held[Locks[0]]; (ok && h.token == lease.Token) || rdb.Get(ctx, "lock:"+Locks[0]).Val() == lease.Token {
		t.Error("the lock was not given back once the demo's clock passed the end of its work")
	}
}

// openServices opens the services on a private Redis, on the test server's clock.
func openServices(t *testing.T) (*redis.Client, *redisrepo.Services) {
	rdb := redistest.Client(t)
	svc, err := redisrepo.Open(context.Background(), redisrepo.OpenOptions{Client: rdb, Clock: redistest.ServerClock{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	return rdb, svc
}

func drain(c chan struct{}) {
	for len(c) > 0 {
		<-c
	}
}

// demoKey says whether a key belongs to the demo's boards, limiters or locks (with their
// zpulse bookkeeping).
func demoKey(k string) bool {
	for _, prefix := range []string{"leaderboard:demo:", "{leaderboard:demo:", "queue:demo:", "{queue:demo:", "rate:sl:demo-", "rate:fw:demo-", "rate:swc:demo-", "rate:tb:demo-", "lock:demo:", "{lock:demo:",
		"zpulse:board:{demo:", "zpulse:limiter:{demo-", "zpulse:index:", "{lock:zpulse:"} {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// A demo left up looks as it did after a minute: over 1,500 rounds (10 minutes of demo time)
// with the reaper returning the jobs of workers that died, the emails waiting stay near
// demoBacklog and the dead ones under demoDeadKept. Before, one enqueue a round against
// about 0.85 jobs done made the queue grow without end (some 200 jobs over these rounds).
func TestDemoQueuesStaySteady(t *testing.T) {
	ctx := context.Background()
	clock := domain.NewManualClock(redistest.ServerClock{}.Now())
	svc, err := redisrepo.Open(ctx, redisrepo.OpenOptions{Client: redistest.Client(t), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	if err := Seed(ctx, Services{Leaderboards: svc.Leaderboards, Limiters: svc.Limiters, Locks: svc.Locks, Queues: svc.Queues, Switch: svc.Demo, Clock: clock}); err != nil {
		t.Fatal(err)
	}
	acks := map[pendingAck]time.Time{}
	most := int64(0)
	for i := range 1500 {
		clock.Advance(400 * time.Millisecond)
		if err := queueTraffic(ctx, svc.Queues, acks, clock.Now()); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			if _, _, err := svc.Queues.Reap(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
		st, err := svc.Queues.Stats(ctx, "demo:emails")
		if err != nil {
			t.Fatal(err)
		}
		if i > 100 && st.Due > most {
			most = st.Due
		}
		if st.Dead > demoDeadKept+1 {
			t.Fatalf("round %d: %d dead emails, want at most %d", i, st.Dead, demoDeadKept+1)
		}
	}
	if most > 3*demoBacklog {
		t.Errorf("the emails waiting reached %d, want them held near %d", most, demoBacklog)
	}
}
