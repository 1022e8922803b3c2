package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/views"
)

// ChartParams name a chart: an entity's ring over a range.
type ChartParams struct {
	Kind  domain.HistoryKind
	Name  string
	Range domain.HistoryRange
}

// History is an entity's charts over one range (a domain.History), topic e.g.
// "history.queue.1h:email-jobs": its ring, read at most once a second (history.Charts).
var History = declare(&Kind[ChartParams, domain.History]{
	Topic: func(c ChartParams) string { return domain.HistoryTopic(c.Kind, c.Name, c.Range) },
	Parse: func(t string) (ChartParams, bool) {
		kind, name, r, ok := domain.ParseHistoryTopic(t)
		return ChartParams{Kind: kind, Name: name, Range: r}, ok
	},
	Watch: func(_ context.Context, r *Rooms, c ChartParams) live.Watch {
		return live.Watch{Keys: []string{r.Keys.HistoryRing(c.Kind, c.Name, c.Range)}}
	},
	Plan: func(ctx context.Context, r *Read, c ChartParams) func() (domain.History, bool) {
		id := history.ChartID(c)
		r.charts[id] = true
		read := r.Rooms.Charts.Plan(ctx, r.Pipe, id, r.Now)
		return func() (domain.History, bool) {
			h := read().Settle() // equal while only quiet buckets land: the browser slides the chart
			h.EndMs = 0
			return h, true
		}
	},
	Render: func(_ Env, _ ChartParams, _ domain.Audience, h domain.History) templ.Component {
		return views.HistoryPanel(h)
	},
	ID: func(c ChartParams) string { return views.HistoryChartID(c.Kind, c.Name) },
})
