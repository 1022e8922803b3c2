package demo

import (
	"context"
	"encoding/json"
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
	s := Services{Leaderboards: svc.Leaderboards, Limiters: limiters, Locks: locks, Switch: svc.Demo, Queues: svc.Queues, Sources: svc.Sources, Clock: redistest.ServerClock{}, Schedules: svc.Schedules}
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

// demoKey says whether a key belongs to the demo's boards, limiters, locks or adopted
// limiter (with their zpulse bookkeeping).
func demoKey(k string) bool {
	for _, prefix := range []string{"leaderboard:demo:", "{leaderboard:demo:", "queue:demo:", "{queue:demo:", "rate:sl:demo-", "rate:fw:demo-", "rate:swc:demo-", "rate:tb:demo-", "lock:demo:", "{lock:demo:",
		"zpulse:board:{demo:", "zpulse:limiter:{demo-", "zpulse:index:", "{lock:zpulse:", "zpulse:sources", "demo:legacy:ratelog:"} {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// A demo left up looks as it did after a minute: over 1,500 rounds (10 minutes of demo time)
// with the reaper returning the jobs of workers that died, the jobs waiting in each queue stay
// near demoBacklog and the dead ones under demoDeadKept, the reminders' too. Before, one
// enqueue a round against about 0.85 jobs done made the queue grow without end (some 200 jobs
// over these rounds), and only the emails' dead set was cleared.
func TestDemoQueuesStaySteady(t *testing.T) {
	ctx := context.Background()
	clock, svc := openOnClock(t)
	acks := map[pendingAck]time.Time{}
	most := map[string]int64{}
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
		for _, q := range Queues {
			st, err := svc.Queues.Stats(ctx, q.Name)
			if err != nil {
				t.Fatal(err)
			}
			if i > 100 && st.Due > most[q.Name] {
				most[q.Name] = st.Due
			}
			if st.Dead > demoDeadKept+1 {
				t.Fatalf("round %d: %d dead in %s, want at most %d", i, st.Dead, q.Name, demoDeadKept+1)
			}
		}
	}
	for q, n := range most {
		if n > 3*demoBacklog {
			t.Errorf("the jobs due in %s reached %d, want them held near %d", q, n, demoBacklog)
		}
	}
}

// Pausing one demo queue holds up neither the other queue nor the rest of the round: its
// workers' polls take nothing and move on, the other queue's named workers go on taking jobs,
// and the paused queue stops growing once demoPausedKept jobs wait in it. The jobs carry JSON
// payloads, and the consumers panel knows the workers by name.
func TestDemoPausedQueueStallsNoOther(t *testing.T) {
	ctx := context.Background()
	clock, svc := openOnClock(t)
	if err := svc.Queues.SetPaused(ctx, "demo:emails", true); err != nil {
		t.Fatal(err)
	}
	acks := map[pendingAck]time.Time{}
	for range 300 {
		clock.Advance(400 * time.Millisecond)
		if err := queueTraffic(ctx, svc.Queues, acks, clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	emails, err := svc.Queues.Stats(ctx, "demo:emails")
	if err != nil {
		t.Fatal(err)
	}
	if emails.Total != demoPausedKept || emails.Processing != 0 {
		t.Errorf("paused emails: %d waiting, %d taken; want %d waiting, none taken", emails.Total, emails.Processing, demoPausedKept)
	}
	reminders, err := svc.Queues.Stats(ctx, "demo:reminders")
	if err != nil || reminders.Total >= demoPausedKept {
		t.Fatalf("the reminders with the emails paused: %+v %v, want them still taken", reminders, err)
	}
	consumers, err := svc.Queues.Consumers(ctx, "demo:reminders")
	if err != nil {
		t.Fatal(err)
	}
	if len(consumers) != 1 || consumers[0].Name != "reminder-bot" || consumers[0].AcksLastMinute+consumers[0].AcksThisMinute == 0 {
		t.Fatalf("the reminders' workers with the emails paused: %+v, want reminder-bot acking", consumers)
	}
	page, err := svc.Queues.Jobs(ctx, "demo:emails", domain.JobListOptions{State: domain.JobWaiting, Limit: 1})
	if err != nil || len(page.Jobs) != 1 {
		t.Fatalf("the emails waiting: %+v %v", page, err)
	}
	job, err := svc.Queues.Job(ctx, "demo:emails", page.Jobs[0].ID)
	if err != nil || !json.Valid(job.Payload) || !strings.Contains(string(job.Payload), `"template"`) {
		t.Fatalf("an email's payload: %s %v, want JSON with a template", job.Payload, err)
	}
}

// The arena's season ends once SeasonEvery has passed since the demo started, and every
// SeasonEvery after; the demo looks at most every 10 s.
func TestDemoSeasonsEndEveryFewMinutes(t *testing.T) {
	ctx := context.Background()
	clock, svc := openOnClock(t)
	st := &state{started: clock.Now()}
	seasons := func() int64 {
		t.Helper()
		if err := seasonTraffic(ctx, svc.Leaderboards, st, clock.Now()); err != nil {
			t.Fatal(err)
		}
		list, err := svc.Leaderboards.Seasons(ctx, Boards[1])
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(list.Seasons))
	}
	if n := seasons(); n != 0 {
		t.Fatalf("%d seasons ended at the start", n)
	}
	clock.Advance(SeasonEvery - time.Second)
	if n := seasons(); n != 0 {
		t.Fatalf("%d seasons ended a second early", n)
	}
	clock.Advance(10 * time.Second)
	if n := seasons(); n != 1 {
		t.Fatalf("%d seasons ended after %s, want 1", n, SeasonEvery)
	}
	for range demoSeasonsKept + 2 {
		clock.Advance(SeasonEvery + 10*time.Second)
		seasons()
	}
	if n := seasons(); n != demoSeasonsKept {
		t.Errorf("%d seasons kept, want %d", n, demoSeasonsKept)
	}
}

// openOnClock opens the services on a private Redis and a manual clock, and seeds the demo.
func openOnClock(t *testing.T) (*domain.ManualClock, *redisrepo.Services) {
	t.Helper()
	ctx := context.Background()
	clock := domain.NewManualClock(redistest.ServerClock{}.Now())
	svc, err := redisrepo.Open(ctx, redisrepo.OpenOptions{Client: redistest.Client(t), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	if err := Seed(ctx, Services{Leaderboards: svc.Leaderboards, Limiters: svc.Limiters, Locks: svc.Locks, Queues: svc.Queues, Sources: svc.Sources, Switch: svc.Demo, Clock: clock}); err != nil {
		t.Fatal(err)
	}
	return clock, svc
}

// The demo shows a board of each kind: demo:sprint ranks the lowest time first and keeps each
// player's best (a slower run changes nothing, a faster one replaces it), demo:quiz keeps the
// latest result, and the demo's rounds keep writing both.
func TestDemoBoardOfEachKind(t *testing.T) {
	ctx := context.Background()
	clock, svc := openOnClock(t)
	sprint, quiz := Boards[2], Boards[3]
	for board, want := range map[string][2]string{sprint: {"asc", "best"}, quiz: {"desc", "set"}} {
		set, err := svc.Leaderboards.Settings(ctx, board)
		if err != nil || string(set.Order()) != want[0] || string(set.Op()) != want[1] {
			t.Fatalf("%s: %s, %s (%v), want %s", board, set.Order(), set.Op(), err, want)
		}
	}
	top, err := svc.Leaderboards.Top(ctx, sprint, domain.AllTime, 3)
	if err != nil || len(top.Entries) != 3 || top.Entries[0].Score > top.Entries[1].Score || top.Entries[1].Score > top.Entries[2].Score {
		t.Fatalf("sprint's top: %+v %v, want the lowest times first", top.Entries, err)
	}
	best := top.Entries[0]
	if _, err := svc.Leaderboards.AddPoints(ctx, sprint, best.Player, best.Score+1_000); err != nil {
		t.Fatal(err)
	}
	if e, err := svc.Leaderboards.Player(ctx, sprint, domain.AllTime, best.Player); err != nil || e.Score != best.Score {
		t.Errorf("a slower run replaced %s's best %d: %+v %v", best.Player, best.Score, e, err)
	}
	if _, err := svc.Leaderboards.AddPoints(ctx, quiz, "alice", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Leaderboards.AddPoints(ctx, quiz, "alice", 2); err != nil {
		t.Fatal(err)
	}
	if e, err := svc.Leaderboards.Player(ctx, quiz, domain.AllTime, "alice"); err != nil || e.Score != 2 {
		t.Errorf("alice's quiz result after 3 then 2: %+v %v, want the latest, 2", e, err)
	}
	before := map[string]int64{}
	wrote := map[string]bool{}
	for _, e := range mustEntries(t, svc, sprint) {
		before[e.Player] = e.Score
	}
	s := Services{Leaderboards: svc.Leaderboards, Limiters: svc.Limiters, Locks: svc.Locks, Queues: svc.Queues, Sources: svc.Sources, Switch: svc.Demo, Clock: clock}
	st := &state{started: clock.Now(), held: map[string]heldLock{}, acks: map[pendingAck]time.Time{}}
	for range 200 {
		if _, err := round(ctx, s, st); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range mustEntries(t, svc, sprint) {
		if e.Score > before[e.Player] {
			t.Errorf("%s's best sprint went from %d to %d ms", e.Player, before[e.Player], e.Score)
		}
		if e.Score < before[e.Player] {
			wrote[sprint] = true
		}
	}
	for _, e := range mustEntries(t, svc, quiz) {
		if e.Score < 1 || e.Score > 10 {
			t.Errorf("%s's quiz result is %d, want 1 to 10", e.Player, e.Score)
		}
	}
	if !wrote[sprint] {
		t.Error("200 rounds beat no sprint time")
	}
}

// mustEntries is a board's first page.
func mustEntries(t *testing.T, svc *redisrepo.Services, board string) []domain.Entry {
	t.Helper()
	page, err := svc.Leaderboards.Entries(context.Background(), board, domain.AllTime, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return page.Entries
}
