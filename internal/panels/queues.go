package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/views"
)

// Queues is every queue with its depth (a []domain.QueueSummary), topic "queues": the queues
// discovery knows.
var Queues = declare(&Kind[struct{}, []domain.QueueSummary]{
	Topic: func(struct{}) string { return domain.TopicQueues },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicQueues },
	Watch: func(_ context.Context, r *Rooms, _ struct{}) live.Watch {
		return live.Watch{Keys: []string{r.Keys.QueueIndex()}, Prefixes: []string{r.Keys.QueuePrefix, r.Keys.QueuesOwn()}}
	},
	Plan: func(ctx context.Context, r *Read, _ struct{}) func() ([]domain.QueueSummary, bool) {
		read := queues.PlanSummaries(ctx, r.Pipe, r.Rooms.Keys, r.Rooms.Found.Names(store.KindQueue), r.Now)
		return func() ([]domain.QueueSummary, bool) { return read(), true }
	},
	Render: func(env Env, _ struct{}, _ domain.Audience, s []domain.QueueSummary) templ.Component {
		return views.QueuesPanel(s, env.Keys)
	},
	ID: func(struct{}) string { return "queues-list" },
})
