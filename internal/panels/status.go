package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// Status is the Redis availability banner every page subscribes to: the watcher makes its
// snapshot (a live.Status) from its own polls, so it has no read and watches no key. It also
// carries the footer's live mode (live.WithMode), pushed when it changes.
var Status = declare(&Kind[struct{}, live.Status]{
	Topic: func(struct{}) string { return domain.TopicStatus },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicStatus },
	Watch: func(context.Context, *Rooms, struct{}) live.Watch { return live.Watch{} },
	Render: func(_ Env, _ struct{}, _ domain.Audience, s live.Status) templ.Component {
		return views.StatusFragment(views.Status{Available: s.Available, Detail: s.Detail, Notice: s.Notice}, s.Mode)
	},
	ID: func(struct{}) string { return "redis-status" },
})
