package panels

import (
	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// Status is the Redis availability banner every page subscribes to: the watcher makes its
// snapshot (a live.Status) from its own polls, so it has no read and watches no key.
var Status = declare(&Kind[struct{}, live.Status]{
	Topic: func(struct{}) string { return domain.TopicStatus },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicStatus },
	Watch: func(*Rooms, struct{}) live.Watch { return live.Watch{} },
	Render: func(_ Env, _ struct{}, _ domain.Audience, s live.Status) templ.Component {
		return views.StatusBanner(views.Status{Available: s.Available, Detail: s.Detail})
	},
	ID: func(struct{}) string { return "redis-status" },
})
