package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// Locks is the held locks of the /locks page (a domain.HeldLocks), topic "locks"
// (locks.LockDirectory): the lock index, every lock's key and its meta and fence. Nothing is
// published until discovery has run once. The overview shows it too. On the watcher's periodic
// poll without keyspace notifications, the read first goes on with discovery's lock step
// (store.Discovery.StepLocks; when: Read.Step), so another service's new lock shows within one
// poll.
var Locks = declare(&Kind[struct{}, domain.HeldLocks]{
	Topic: func(struct{}) string { return domain.TopicLocks },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicLocks },
	Watch: func(_ context.Context, r *Rooms, _ struct{}) live.Watch {
		return live.Watch{Keys: []string{r.Keys.LockIndex()}, Prefixes: []string{r.Keys.LockPrefix, r.Keys.LocksMeta()}}
	},
	Plan: func(ctx context.Context, r *Read, _ struct{}) func() (domain.HeldLocks, bool) {
		return r.Rooms.Locks.Plan(ctx, r.Pipe, r.Rooms.Keys, r.Step())
	},
	Render: func(env Env, _ struct{}, aud domain.Audience, held domain.HeldLocks) templ.Component {
		return views.LocksPanel(aud.Locks(held), true, env.Keys)
	},
	ID: func(struct{}) string { return views.LocksPanelID },
})
