package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/views"
)

// Queue is a queue's page (a domain.QueueView), topic e.g. "queue.email-jobs": its key and
// every key of its tag (jobs, settings, throughput, consumers, …).
var Queue = declare(&Kind[string, domain.QueueView]{
	Topic: domain.QueueTopic,
	Parse: domain.ParseQueueTopic,
	Watch: func(_ context.Context, r *Rooms, q string) live.Watch {
		return live.Watch{Keys: []string{r.Keys.Queue(q)}, Prefixes: []string{r.Keys.QueueOwn(q)}}
	},
	Plan: func(ctx context.Context, r *Read, q string) func() (domain.QueueView, bool) {
		read := queues.PlanQueueView(ctx, r.Pipe, r.Rooms.Keys, q, r.Now)
		return func() (domain.QueueView, bool) { return read(), true }
	},
	Render: func(_ Env, _ string, aud domain.Audience, v domain.QueueView) templ.Component {
		return views.QueuePanel(aud.Queue(v), "", true)
	},
	ID: views.QueuePanelID,
})
