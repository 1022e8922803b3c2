// Package demo makes a dashboard look alive in a demo environment: players score on boards,
// clients hit limiters of every algorithm (some over their limit), and locks are taken and
// released, all through the same domain services the HTTP API uses and only under the demo's
// own names (Boards, Limiters, Locks), so --demo against a real Redis touches nothing else.
package demo

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// The demo's own names; it writes nowhere else.
var (
	Boards   = []string{"demo:2048", "demo:arena"}
	Limiters = []domain.LimitPolicy{
		{Name: "demo-log", Algorithm: domain.SlidingLog, Limit: 5, WindowMs: 10_000},
		{Name: "demo-fixed", Algorithm: domain.FixedWindow, Limit: 8, WindowMs: 10_000},
		{Name: "demo-counter", Algorithm: domain.SlidingCounter, Limit: 8, WindowMs: 10_000},
		{Name: "demo-bucket", Algorithm: domain.TokenBucket, RatePerS: 0.5, Burst: 4},
	}
	Locks = []string{"demo:report", "demo:invoice:1", "demo:invoice:2", "demo:cache-rebuild"}
)

var players = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zed"}

// clients of the demo limiters: the last one is greedy and spends most time over its limit.
var clients = []string{"c-1", "c-2", "c-3", "c-4", "greedy"}

// Services are what the demo drives.
type Services struct {
	Leaderboards domain.LeaderboardService
	Limiters     domain.LimiterService
	Locks        domain.LockService
	Switch       domain.DemoSwitch
}

// Seed gives the demo boards their settings and players (demo:2048 keeps daily, weekly and
// monthly boards; demo:arena ranks the first to reach a score higher) and saves the demo
// limiter policies.
func Seed(ctx context.Context, s Services) error {
	settings := map[string]domain.BoardSettings{
		Boards[0]: {TieBreak: domain.TieBreakNone, Periods: domain.Periods, RetentionDays: 30},
		Boards[1]: {TieBreak: domain.TieBreakFirstReached, Periods: []domain.Period{domain.Daily}, RetentionDays: 7},
	}
	for board, set := range settings {
		if _, err := s.Leaderboards.UpdateSettings(ctx, board, set); err != nil {
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
			if _, err := s.Leaderboards.AddPoints(ctx, b, p, int64(10+i*37%90)); err != nil {
				return err
			}
		}
	}
	for _, p := range Limiters {
		if _, err := s.Limiters.SetPolicy(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// Run makes traffic every interval until ctx ends, unless the switch says it is paused; it
// nudges after each round so the change shows at once. It releases its locks when it stops.
// Failures (Redis down) are logged once per outage.
func Run(ctx context.Context, s Services, every time.Duration, nudge func(), log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	held := map[string]heldLock{}
	defer func() {
		for name, h := range held { // a fresh context: ctx has ended
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
		case <-t.C:
		}
		acted, err := round(ctx, s, held)
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

type heldLock struct {
	token string
	until time.Time
}

// round makes one round of traffic, unless the demo is paused: points on a board, a few
// limiter checks, and a lock taken or given back. It reports whether it made any.
func round(ctx context.Context, s Services, held map[string]heldLock) (bool, error) {
	if paused, err := s.Switch.Paused(ctx); err != nil || paused {
		return false, err
	}
	board := Boards[rand.IntN(len(Boards))]
	if _, err := s.Leaderboards.AddPoints(ctx, board, players[rand.IntN(len(players))], int64(rand.IntN(50)+1)); err != nil {
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
	return true, lockTraffic(ctx, s.Locks, held)
}

// lockTraffic releases the demo locks whose work is done and, now and then, takes another
// for a few seconds of pretend work.
func lockTraffic(ctx context.Context, locks domain.LockService, held map[string]heldLock) error {
	now := time.Now()
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
