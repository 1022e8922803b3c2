package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// Schedules is the recurring schedules of the /schedules page (a []domain.Schedule), topic
// "schedules" (schedules.Directory): the index and each schedule's hash, which lives beside
// its queue ({queue:<queue>}:schedule:<name>), so the watch takes the braced queue keys'
// prefix. A new schedule is read in the same poll (the read again).
var Schedules = declare(&Kind[struct{}, []domain.Schedule]{
	Topic: func(struct{}) string { return domain.TopicSchedules },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicSchedules },
	Watch: func(_ context.Context, r *Rooms, _ struct{}) live.Watch {
		return live.Watch{Keys: []string{r.Keys.ScheduleIndex()}, Prefixes: []string{"{" + r.Keys.QueuePrefix}}
	},
	Plan: func(ctx context.Context, r *Read, _ struct{}) func() ([]domain.Schedule, bool) {
		return r.Rooms.Schedules.Plan(ctx, r.Pipe, r.Rooms.Keys)
	},
	Render: func(_ Env, _ struct{}, aud domain.Audience, list []domain.Schedule) templ.Component {
		return views.SchedulesPanel(list, "", true)
	},
	ID: func(struct{}) string { return views.SchedulesPanelID },
})
