package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/views"
)

// BoardParams are a board panel's: the board, its period and how many entries it shows (one
// of domain.BoardTopNs).
type BoardParams struct {
	Board  string
	Period domain.Period
	N      int
}

// Board is a board's top entries (a domain.BoardTop), e.g. topic "board.all.10:game:2048".
var Board = declare(&Kind[BoardParams, domain.BoardTop]{
	Topic: func(p BoardParams) string { return domain.BoardTopic(p.Board, p.Period, p.N) },
	Parse: func(t string) (BoardParams, bool) {
		b, period, n, ok := domain.ParseBoardTopic(t)
		return BoardParams{b, period, n}, ok
	},
	// A period's board key moves with the period, so all of the board's are watched.
	Watch: func(_ context.Context, r *Rooms, p BoardParams) live.Watch {
		return live.Watch{Keys: []string{r.Keys.Leaderboard(p.Board), r.Keys.SeasonRolloverFailures()},
			Prefixes: []string{r.Keys.Leaderboard(p.Board) + ":", r.Keys.BoardOwn(p.Board)}}
	},
	Plan: func(ctx context.Context, r *Read, p BoardParams) func() (domain.BoardTop, bool) {
		read := boards.PlanTop(ctx, r.Pipe, r.Rooms.Keys, p.Board, p.Period, p.N, r.Now)
		return func() (domain.BoardTop, bool) { return read(), true }
	},
	Render: func(env Env, p BoardParams, _ domain.Audience, top domain.BoardTop) templ.Component {
		return views.BoardPanel(top, p.N, env.BigKey, true)
	},
	ID: func(p BoardParams) string { return views.BoardPanelID(p.Board, p.Period, p.N) },
})
