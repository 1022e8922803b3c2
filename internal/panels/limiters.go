package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// Limiters is every limiter's live view (a []domain.LimiterView), for the overview, topic
// "limiters" (limiters.Overview): the index of policies, every policy's keys and every
// client's state.
var Limiters = declare(&Kind[struct{}, []domain.LimiterView]{
	Topic: func(struct{}) string { return domain.TopicLimiters },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicLimiters },
	Watch: func(_ context.Context, r *Rooms, _ struct{}) live.Watch {
		return live.Watch{Keys: []string{r.Keys.LimiterIndex()}, Prefixes: []string{r.Keys.LimitersOwn(), r.Keys.RatePrefix}}
	},
	Plan: func(ctx context.Context, r *Read, _ struct{}) func() ([]domain.LimiterView, bool) {
		return r.Rooms.Overview.Plan(ctx, r.Pipe, r.limiters, r.Again)
	},
	Render: func(_ Env, _ struct{}, aud domain.Audience, v []domain.LimiterView) templ.Component {
		return views.LimitersOverview(aud.Limiters(v))
	},
	ID: func(struct{}) string { return "limiters-overview" },
})
