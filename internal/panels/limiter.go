package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// Limiter is a limiter's live view (a domain.LimiterView), topic e.g. "limiter:api": its
// policy's own keys and its clients' state under any algorithm. Its first read only learns
// the policy and the clients (limiters.LimiterViews).
var Limiter = declare(&Kind[string, domain.LimiterView]{
	Topic: domain.LimiterTopic,
	Parse: domain.ParseLimiterTopic,
	Watch: func(_ context.Context, r *Rooms, name string) live.Watch {
		return live.Watch{Keys: []string{r.Keys.LimiterPolicy(name)},
			Prefixes: append([]string{r.Keys.LimiterPolicy(name) + ":"}, r.Keys.LimiterStatePrefixes(name)...)}
	},
	Plan: func(ctx context.Context, r *Read, name string) func() (domain.LimiterView, bool) {
		r.limiters[name] = true
		read := r.Rooms.Limiters.PlanLive(ctx, r.Pipe, name)
		return func() (domain.LimiterView, bool) {
			v, seen, whole := read()
			return v, seen && (whole || r.Again)
		}
	},
	Render: func(_ Env, _ string, aud domain.Audience, v domain.LimiterView) templ.Component {
		return views.LimiterPanel(aud.Limiter(v), true)
	},
	ID: views.LimiterPanelID,
})
