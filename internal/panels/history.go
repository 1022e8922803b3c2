package panels

import (
	"context"
	"strings"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/views"
)

// ChartParams name a chart: an entity's ring over a range; for a board, the period whose
// players it charts (its page's period tab; AllTime by default).
type ChartParams struct {
	Kind   domain.HistoryKind
	Name   string
	Range  domain.HistoryRange
	Period domain.Period
}

// A board chart that charts a period's players says the period after its range, e.g.
// "history.board.1h.weekly:sprint": before the name's ':' (a board name may hold ". _ - :"),
// and in the characters a live topic allows (A-Z a-z 0-9 : . _ -).
const chartBoardHead = "history." + string(domain.HistoryBoard) + "."

// History is an entity's charts over one range (a domain.History), topic e.g.
// "history.queue.1h:email-jobs": its ring, read at most once a second (history.Charts).
var History = declare(&Kind[ChartParams, domain.History]{
	Topic: func(c ChartParams) string {
		t := domain.HistoryTopic(c.Kind, c.Name, c.Range)
		if c.Kind == domain.HistoryBoard && c.Period != domain.AllTime {
			head, name, _ := strings.Cut(t, ":")
			t = head + "." + string(c.Period) + ":" + name
		}
		return t
	},
	Parse: func(t string) (ChartParams, bool) {
		var period domain.Period
		if head, name, cut := strings.Cut(t, ":"); cut && strings.HasPrefix(head, chartBoardHead) {
			if r, p, dotted := strings.Cut(strings.TrimPrefix(head, chartBoardHead), "."); dotted {
				parsed, err := domain.ParsePeriod(p)
				if err != nil || parsed == domain.AllTime || p == "" {
					return ChartParams{}, false
				}
				t, period = chartBoardHead+r+":"+name, parsed
			}
		}
		kind, name, r, ok := domain.ParseHistoryTopic(t)
		return ChartParams{Kind: kind, Name: name, Range: r, Period: period}, ok
	},
	Watch: func(_ context.Context, r *Rooms, c ChartParams) live.Watch {
		return live.Watch{Keys: []string{r.Keys.HistoryRing(c.Kind, c.Name, c.Range)}}
	},
	Plan: func(ctx context.Context, r *Read, c ChartParams) func() (domain.History, bool) {
		id := history.ChartID{Kind: c.Kind, Name: c.Name, Range: c.Range}
		r.charts[id] = true
		read := r.Rooms.Charts.Plan(ctx, r.Pipe, id, r.Now)
		return func() (domain.History, bool) {
			h := read().ForPeriod(c.Period).Settle() // equal while only quiet buckets land: the browser slides the chart
			h.EndMs = 0
			return h, true
		}
	},
	Render: func(_ Env, _ ChartParams, _ domain.Audience, h domain.History) templ.Component {
		return views.HistoryPanel(h)
	},
	ID: func(c ChartParams) string { return views.HistoryChartID(c.Kind, c.Name) },
})
