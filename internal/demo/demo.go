// Package demo makes a dashboard look alive in a demo environment: players score on boards
// (one of them ending a season every few minutes), producers enqueue jobs with JSON payloads
// that named workers take with leases (some slow, some failing and retried, a few ending
// dead), clients hit limiters of every algorithm (some over their limit) and an adopted one in
// another service's layout, and locks are taken and released, all through the same domain
// services the HTTP API uses and only under the demo's own names (Boards, Queues, Limiters,
// Locks, Source), so --demo against a real Redis touches nothing else.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// The demo's own names; it writes nowhere else.
var (
	// Boards: one of each kind. demo:2048 and demo:arena add points up (higher first);
	// demo:sprint ranks the lowest time first and keeps each player's best, in milliseconds;
	// demo:quiz keeps each player's latest result.
	Boards   = []string{"demo:2048", "demo:arena", "demo:sprint", "demo:quiz"}
	Limiters = []domain.LimitPolicy{
		{Name: "demo-log", Algorithm: domain.SlidingLog, Limit: 5, WindowMs: 10_000},
		{Name: "demo-fixed", Algorithm: domain.FixedWindow, Limit: 8, WindowMs: 10_000},
		{Name: "demo-counter", Algorithm: domain.SlidingCounter, Limit: 8, WindowMs: 10_000},
		{Name: "demo-bucket", Algorithm: domain.TokenBucket, RatePerS: 0.5, Burst: 4},
	}
	Locks = []string{"demo:report", "demo:invoice:1", "demo:invoice:2", "demo:cache-rebuild"}
	// Queues: a priority queue of emails and a delayed queue of reminders, each with its
	// named workers.
	Queues = []Queue{
		{Name: "demo:emails", Settings: domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 3}, Workers: []string{"mailer-1", "mailer-2"}},
		{Name: "demo:reminders", Settings: domain.QueueSettings{Kind: domain.DelayedQueue, MaxAttempts: 3}, Workers: []string{"reminder-bot"}},
	}
	// Source is a limiter adopted as another service keeps it (a sliding log per client in a
	// layout of its own), tried each round like the demo's own.
	Source = domain.Source{Name: "demo-legacy-api", Kind: domain.SourceLimiter, Key: "demo:legacy:ratelog:{client}", Encoding: domain.SourceSlidingLog, Limit: 6, WindowMs: 10_000}
)

// Queue is a demo queue: its settings and the consumer names its workers poll under (each at
// most once a round, twice when the queue is behind).
type Queue struct {
	Name     string
	Settings domain.QueueSettings
	Workers  []string
}

// SeasonEvery is how often the demo ends the current season of its arena board, so that
// seasons and their winners show within minutes; demoSeasonsKept bounds the seasons kept.
const (
	SeasonEvery     = 3 * time.Minute
	demoSeasonsKept = 5
)

// demoLease is how long a demo worker may take a job before the reaper returns it.
const demoLease = 4 * time.Second

// The demo's queues keep a steady state, so a demo left up for a day looks as it did after a
// minute: past demoBacklog waiting jobs a queue's workers take more each round (one enqueue a
// round against about 0.85 jobs done by a worker's poll grew the queue by some 700 jobs in
// half an hour), past demoDeadKept dead jobs they clear the dead set, and a queue someone
// paused gets no more jobs once demoPausedKept wait in it.
const (
	demoBacklog    = 8
	demoDeadKept   = 20
	demoPausedKept = 40
)

var players = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zed"}

// clients of the demo limiters: the last one is greedy and spends most time over its limit.
var clients = []string{"c-1", "c-2", "c-3", "c-4", "greedy"}

// Services are what the demo drives.
type Services struct {
	Leaderboards domain.LeaderboardService
	Limiters     domain.LimiterService
	Locks        domain.LockService
	Queues       domain.QueueService
	Sources      domain.SourceService
	Switch       domain.DemoSwitch
	Clock        domain.Clock // when the pretend work of its workers and lock holders ends
	// Schedules, when given, gets the demo's recurring schedule (DemoSchedule).
	Schedules domain.ScheduleService
}

// DemoSchedule is the demo's recurring schedule: a digest e-mail every minute on demo:emails,
// which the demo's workers take like the others.
var DemoSchedule = domain.ScheduleSpec{Name: "nightly-digest", Queue: "demo:emails", Every: time.Minute,
	Job: domain.ScheduledJob{Type: "digest.send", Priority: 5, HasPriority: true, Payload: []byte(`{"digest":"nightly","to":"all-players"}`)}}

// Seed gives the demo boards their settings and players (demo:2048 keeps daily, weekly and
// monthly boards; demo:arena ranks the first to reach a score higher and keeps its last
// seasons; demo:sprint is lower-is-better, best time kept, with a weekly board; demo:quiz
// keeps the latest result), saves the demo limiter policies and queue settings, adopts Source and makes the
// demo's schedule (DemoSchedule).
func Seed(ctx context.Context, s Services) error {
	settings := map[string]domain.BoardSettingsPatch{
		Boards[0]: {TieBreak: ptr(domain.TieBreakNone), Periods: ptr(domain.Periods), RetentionDays: ptr(30)},
		Boards[1]: {TieBreak: ptr(domain.TieBreakFirstReached), Periods: ptr([]domain.Period{domain.Daily}), RetentionDays: ptr(7), KeepSeasons: ptr(demoSeasonsKept)},
		Boards[2]: {TieBreak: ptr(domain.TieBreakFirstReachedE10), SortOrder: ptr(domain.SortAsc), Operator: ptr(domain.OperatorBest), Periods: ptr([]domain.Period{domain.Weekly}), RetentionDays: ptr(30)},
		Boards[3]: {TieBreak: ptr(domain.TieBreakNone), Operator: ptr(domain.OperatorSet), Periods: ptr([]domain.Period{}), RetentionDays: ptr(7)},
	}
	for board, set := range settings {
		if _, err := s.Leaderboards.PatchSettings(ctx, board, set); err != nil {
			return err
		}
	}
	for _, b := range Boards {
		top, err := s.Leaderboards.Top(ctx, b, domain.AllTime, 1)
		if err != nil {
			return err
		}
		if top.Players > 0 {
			continue // seeded before: a restart keeps the boards as they are
		}
		for i, p := range players {
			if _, err := s.Leaderboards.AddPoints(ctx, b, p, seedScore(b, i)); err != nil {
				return err
			}
		}
	}
	for _, p := range Limiters {
		if _, err := s.Limiters.SetPolicy(ctx, p); err != nil {
			return err
		}
	}
	for _, q := range Queues {
		if _, err := s.Queues.UpdateSettings(ctx, q.Name, q.Settings); err != nil && domain.ErrorCode(err) != domain.ECONFLICT {
			return err // a conflict: the queue holds jobs from an earlier run, and keeps its kind
		}
	}
	if _, err := s.Sources.SaveSource(ctx, Source); err != nil {
		return err
	}
	if s.Schedules != nil {
		if _, err := s.Schedules.CreateSchedule(ctx, DemoSchedule); err != nil && domain.ErrorCode(err) != domain.ECONFLICT {
			return err // a conflict: made by an earlier run, and kept as it is (paused, perhaps)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// seedScore is the i-th player's first score on a demo board: a sprint time of 9 to 21 s in
// ms, a quiz result from 1 to 10, points elsewhere.
func seedScore(board string, i int) int64 {
	switch board {
	case Boards[2]:
		return int64(9_000 + i*7_919%12_000)
	case Boards[3]:
		return int64(1 + i*7%10)
	}
	return int64(10 + i*37%90)
}

// roundScore is a round's write on a demo board: a sprint run (the board keeps the best), a
// quiz result (the board keeps the latest), points added elsewhere.
func roundScore(board string) int64 {
	switch board {
	case Boards[2]:
		return int64(8_500 + rand.IntN(13_000))
	case Boards[3]:
		return int64(1 + rand.IntN(10))
	}
	return int64(rand.IntN(50) + 1)
}

// Run makes traffic every interval until ctx ends, unless the switch says it is paused; it
// nudges after each round so the change shows at once. It releases its locks when it stops.
// Failures (Redis down) are logged once per outage.
func Run(ctx context.Context, s Services, every time.Duration, nudge func(), log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	run(ctx, s, t.C, nudge, log)
}

// run makes a round of traffic for each value received from rounds; a test sends them itself.
func run(ctx context.Context, s Services, rounds <-chan time.Time, nudge func(), log *slog.Logger) {
	st := &state{held: map[string]heldLock{}, acks: map[pendingAck]time.Time{}, started: s.Clock.Now()}
	defer func() {
		for name, h := range st.held { // a fresh context: ctx has ended
			release, cancel := context.WithTimeout(context.Background(), time.Second)
			_, _ = s.Locks.Release(release, name, h.token)
			cancel()
		}
	}()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-rounds:
		}
		acted, err := round(ctx, s, st)
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			log.Warn("demo traffic paused: Redis does not answer", "err", err)
			failing = true
		case err == nil:
			failing = false
			if acted {
				nudge()
			}
		}
	}
}

// state is what the demo's workers hold between rounds.
type state struct {
	held map[string]heldLock      // locks taken, and when their work is done
	acks map[pendingAck]time.Time // jobs taken by slow workers, and when they ack
	// started is when the demo started: the arena's season counts from it when no season
	// has ended yet; seasonCheck is when the demo next looks whether the season is over.
	started, seasonCheck time.Time
}

type heldLock struct {
	token string
	until time.Time
}

type pendingAck struct{ queue, id, token string }

// round makes one round of traffic, unless the demo is paused: points on a board, a few
// limiter checks (now and then one on the adopted limiter), jobs, a lock taken or given back,
// and the arena's season ended when it is due. It reports whether it made any.
func round(ctx context.Context, s Services, st *state) (bool, error) {
	if paused, err := s.Switch.Paused(ctx); err != nil || paused {
		return false, err
	}
	board := Boards[rand.IntN(len(Boards))]
	if _, err := s.Leaderboards.AddPoints(ctx, board, players[rand.IntN(len(players))], roundScore(board)); err != nil {
		return false, err
	}
	for range 1 + rand.IntN(3) {
		client := clients[rand.IntN(len(clients))]
		if rand.IntN(3) == 0 {
			client = clients[len(clients)-1] // the greedy client asks far more often
		}
		if _, err := s.Limiters.Allow(ctx, Limiters[rand.IntN(len(Limiters))].Name, client); err != nil {
			return false, err
		}
	}
	if rand.IntN(2) == 0 {
		if _, err := s.Sources.TrySource(ctx, Source.Name, clients[rand.IntN(len(clients))]); err != nil {
			return false, err
		}
	}
	now := s.Clock.Now()
	if err := queueTraffic(ctx, s.Queues, st.acks, now); err != nil {
		return false, err
	}
	if err := seasonTraffic(ctx, s.Leaderboards, st, now); err != nil {
		return false, err
	}
	return true, lockTraffic(ctx, s.Locks, st.held, now)
}

// seasonTraffic ends the arena's season once SeasonEvery has passed since it started (since
// the demo started, when none has ended yet), looking every 10 s rather than every round.
func seasonTraffic(ctx context.Context, boards domain.LeaderboardService, st *state, now time.Time) error {
	if now.Before(st.seasonCheck) {
		return nil
	}
	st.seasonCheck = now.Add(10 * time.Second)
	list, err := boards.Seasons(ctx, Boards[1])
	if err != nil {
		return err
	}
	started := st.started
	if list.CurrentStarted != nil {
		started = *list.CurrentStarted
	}
	if now.Sub(started) < SeasonEvery {
		return nil
	}
	_, err = boards.EndSeason(ctx, Boards[1])
	return err
}

// queueTraffic has a producer enqueue jobs with JSON payloads (emails every round at mixed
// priorities, now and then a reminder due in a few seconds) and each queue's named workers
// take jobs with a lease: most finish at once, some are slow and ack later, and some fail
// without an ack, so the reaper retries them and a few end dead. Each queue is looked after
// on its own: a paused one (whose polls take nothing) holds up neither the other nor the
// rest of the round. The workers hold each queue near demoBacklog and its dead jobs under
// demoDeadKept.
func queueTraffic(ctx context.Context, queues domain.QueueService, acks map[pendingAck]time.Time, now time.Time) error {
	for a, at := range acks {
		if now.After(at) {
			delete(acks, a)
			if err := queues.Ack(ctx, a.queue, a.id, a.token); err != nil && domain.ErrorCode(err) != domain.ECONFLICT {
				return err // conflict: the lease ran out first and the job went back
			}
		}
	}
	for _, q := range Queues {
		if err := tendQueue(ctx, queues, q, acks, now); err != nil {
			return err
		}
	}
	return nil
}

// tendQueue makes one queue's traffic for queueTraffic.
func tendQueue(ctx context.Context, queues domain.QueueService, q Queue, acks map[pendingAck]time.Time, now time.Time) error {
	st, err := queues.Stats(ctx, q.Name)
	if err != nil {
		return err
	}
	if st.Dead > demoDeadKept {
		if _, err := queues.DeleteDead(ctx, q.Name); err != nil {
			return err
		}
	}
	if job, ok := newJob(q); ok && st.Total < demoPausedKept {
		if _, err := queues.Enqueue(ctx, q.Name, job); err != nil {
			return err
		}
	}
	polls := q.Workers
	if st.Due > demoBacklog {
		polls = append(slices.Clone(polls), q.Workers...) // each worker takes a second job
	}
	for _, worker := range polls {
		if rand.IntN(2) == 0 {
			continue
		}
		d, ok, err := queues.Poll(ctx, q.Name, domain.PollOptions{Lease: demoLease, Consumer: worker})
		if err != nil {
			return err
		}
		if !ok {
			continue // nothing due, or the queue is paused
		}
		switch r := rand.IntN(20); {
		case r < 2: // the worker dies: no ack; the reaper returns the job after its lease
		case r < 3: // the worker fails and says so: the job goes back at once
			if _, err := queues.Nack(ctx, q.Name, d.ID, d.Token, 0, "the mail server refused the message"); err != nil {
				return err
			}
		case r < 6: // a slow worker
			acks[pendingAck{q.Name, d.ID, d.Token}] = now.Add(time.Duration(1+rand.IntN(3)) * time.Second)
		default:
			if err := queues.Ack(ctx, q.Name, d.ID, d.Token); err != nil {
				return err
			}
		}
	}
	return nil
}

// newJob is the job a queue's producer enqueues this round, if any: an email every round, a
// reminder one round in three.
func newJob(q Queue) (domain.NewJob, bool) {
	player := players[rand.IntN(len(players))]
	if q.Settings.Kind == domain.DelayedQueue {
		if rand.IntN(3) != 0 {
			return domain.NewJob{}, false
		}
		payload := fmt.Sprintf(`{"player":%q,"message":"Your daily chest is ready","channel":%q}`, player, []string{"push", "email"}[rand.IntN(2)])
		return domain.NewJob{Delay: time.Duration(2+rand.IntN(20)) * time.Second, Payload: json.RawMessage(payload)}, true
	}
	templates := []string{"welcome", "receipt", "password-reset", "weekly-digest"}
	payload := fmt.Sprintf(`{"to":"%s@example.org","template":%q,"locale":%q}`, player, templates[rand.IntN(len(templates))], []string{"en", "fr", "de"}[rand.IntN(3)])
	return domain.NewJob{Priority: []int{0, 1, 3, 5, 5, 7, 9}[rand.IntN(7)], HasPriority: true, Payload: json.RawMessage(payload)}, true
}

// lockTraffic releases the demo locks whose work is done and, now and then, takes another
// for a few seconds of pretend work.
func lockTraffic(ctx context.Context, locks domain.LockService, held map[string]heldLock, now time.Time) error {
	for name, h := range held {
		if now.After(h.until) {
			delete(held, name)
			if _, err := locks.Release(ctx, name, h.token); err != nil && domain.ErrorCode(err) != domain.ECONFLICT {
				return err
			}
		}
	}
	if rand.IntN(4) != 0 {
		return nil
	}
	name := Locks[rand.IntN(len(Locks))]
	if _, busy := held[name]; busy {
		return nil
	}
	ttl := time.Duration(5+rand.IntN(20)) * time.Second
	lease, err := locks.Acquire(ctx, name, domain.LockOptions{TTL: ttl})
	switch {
	case domain.ErrorCode(err) == domain.ECONFLICT:
		return nil // held by another: that is what locks are for
	case err != nil:
		return err
	}
	held[name] = heldLock{token: lease.Token, until: now.Add(time.Duration(float64(ttl) * (0.3 + 0.5*rand.Float64())))}
	return nil
}
