package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/views"
)

// Boards is every board with its player count and top 3 (a []domain.BoardSummary), topic
// "boards": the boards discovery knows, read with their settings.
var Boards = declare(&Kind[struct{}, []domain.BoardSummary]{
	Topic: func(struct{}) string { return domain.TopicBoards },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicBoards },
	Watch: func(_ context.Context, r *Rooms, _ struct{}) live.Watch {
		return live.Watch{Keys: []string{r.Keys.BoardIndex(), r.Keys.SeasonRolloverFailures()}, Prefixes: []string{r.Keys.LeaderboardPrefix, r.Keys.BoardsOwn()}}
	},
	Plan: func(ctx context.Context, r *Read, _ struct{}) func() ([]domain.BoardSummary, bool) {
		read := boards.PlanSummaries(ctx, r.Pipe, r.Rooms.Keys, r.Rooms.Found.Names(store.KindBoard), r.Now)
		return func() ([]domain.BoardSummary, bool) { return read(), true }
	},
	Render: func(env Env, _ struct{}, _ domain.Audience, s []domain.BoardSummary) templ.Component {
		return views.BoardsPanel(s, env.Keys)
	},
	ID: func(struct{}) string { return "boards-list" },
})
