package views

import (
	"slices"

	"github.com/zpulse/zpulse/internal/domain"
)

// OverviewData is what the overview shows besides the live panels' own data.
type OverviewData struct {
	Boards   []domain.BoardSummary
	Queues   []domain.QueueSummary
	Limiters []domain.LimiterView
	Locks    domain.HeldLocks
	Demo     *DemoState // nil when the demo does not run
	// Adopted are the sources other services write, of every kind (Sources: /sources).
	Adopted []domain.SourceView
}

// DemoState is the demo traffic's switch as the overview shows it.
type DemoState struct {
	Paused bool
}

// hotClients are a limiter's clients closest to their limit, at most n.
func hotClients(v domain.LimiterView, n int) []domain.ClientUsage {
	clients := slices.Clone(v.Clients)
	slices.SortStableFunc(clients, func(a, b domain.ClientUsage) int {
		// a.Used/a.Limit > b.Used/b.Limit, without division
		return int(b.Used*max(a.Limit, 1) - a.Used*max(b.Limit, 1))
	})
	return clients[:min(n, len(clients))]
}

func limiterTotals(v domain.LimiterView) (allowed, rejected int64) {
	_, allowed, rejected = secondBars(v)
	return allowed, rejected
}
