// Package demo makes a dashboard look alive in a demo environment: it seeds boards and keeps
// adding points at random, through the same domain services the HTTP API uses.
package demo

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Boards are the demo's own board names; it writes nowhere else.
var Boards = []string{"game:2048", "demo:arena"}

var players = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zed"}

// Seed gives every demo board its settings and players, starting with the articles' example
// on game:2048, which keeps daily, weekly and monthly boards; demo:arena ranks the first to
// reach a score higher.
func Seed(ctx context.Context, lb domain.LeaderboardService) error {
	settings := map[string]domain.BoardSettings{
		Boards[0]: {TieBreak: domain.TieBreakNone, Periods: domain.Periods, RetentionDays: 30},
		Boards[1]: {TieBreak: domain.TieBreakFirstReached, Periods: []domain.Period{domain.Daily}, RetentionDays: 7},
	}
	for board, s := range settings {
		if _, err := lb.UpdateSettings(ctx, board, s); err != nil {
			return err
		}
	}
	for _, a := range []struct {
		player string
		points int64
	}{{"alice", 120}, {"bob", 95}, {"carol", 150}, {"bob", 60}} {
		if _, err := lb.AddPoints(ctx, Boards[0], a.player, a.points); err != nil {
			return err
		}
	}
	for _, b := range Boards {
		for i, p := range players {
			if _, err := lb.AddPoints(ctx, b, p, int64(10+i*7%90)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Run adds points to a random player of a random demo board every interval until ctx ends,
// and nudges so the change shows at once. Failures (Redis down) are logged once per outage.
func Run(ctx context.Context, lb domain.LeaderboardService, every time.Duration, nudge func(), log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		board := Boards[rand.IntN(len(Boards))]
		player := players[rand.IntN(len(players))]
		_, err := lb.AddPoints(ctx, board, player, int64(rand.IntN(50)+1))
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			log.Warn("demo traffic paused: cannot add points", "err", err)
			failing = true
		case err == nil:
			failing = false
			nudge()
		}
	}
}
