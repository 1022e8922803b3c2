package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/views"
)

// JobParams name a job: its queue and id.
type JobParams struct{ Queue, ID string }

// Job is a job's page (a domain.JobDetail; a job gone reads as one with no state), topic
// e.g. "job.5.emailcGFzc3dvcmQtcmVzZXQ": its queue's key and the keys of the queue's tag.
var Job = declare(&Kind[JobParams, domain.JobDetail]{
	Topic: func(p JobParams) string { return domain.JobTopic(p.Queue, p.ID) },
	Parse: func(t string) (JobParams, bool) {
		q, id, ok := domain.ParseJobTopic(t)
		return JobParams{q, id}, ok
	},
	Watch: func(_ context.Context, r *Rooms, p JobParams) live.Watch {
		return live.Watch{Keys: []string{r.Keys.Queue(p.Queue)}, Prefixes: []string{r.Keys.QueueOwn(p.Queue)}}
	},
	Plan: func(ctx context.Context, r *Read, p JobParams) func() (domain.JobDetail, bool) {
		read := queues.PlanJob(ctx, r.Pipe, r.Rooms.Keys, r.Rooms.Completed, p.Queue, p.ID, r.Now)
		return func() (domain.JobDetail, bool) {
			if j, ok := read(); ok {
				return j, true
			}
			return domain.JobDetail{Queue: p.Queue, ID: p.ID}, true // gone: no state
		}
	},
	Render: func(_ Env, _ JobParams, aud domain.Audience, j domain.JobDetail) templ.Component {
		return views.JobPanel(aud.Job(j), "")
	},
	ID: func(p JobParams) string { return views.JobPanelID(p.Queue, p.ID) },
})
