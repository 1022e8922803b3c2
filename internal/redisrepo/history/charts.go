package history

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Charts is the live path's read of history charts: a ring is up to 46 KB and changes once
// per 10 s bucket, while the watcher reads every 250 ms or faster, so each chart's ring is
// read at most once per second of the clock. Within the second, the last read stands; a
// bucket that lands shows within a second. Only the watcher reads it.
type Charts struct {
	keys store.Keys

	mu   sync.Mutex
	last map[ChartID]chartRead // charts read lately
}

// ChartID names one chart: an entity's ring over a range.
type ChartID struct {
	Kind  domain.HistoryKind
	Name  string
	Range domain.HistoryRange
}

// chartRead is a chart's last read and the wall-clock second it was made in.
type chartRead struct {
	second int64
	h      domain.History
}

// NewCharts returns the live path's chart reader over keys.
func NewCharts(keys store.Keys) *Charts { return &Charts{keys: keys, last: map[ChartID]chartRead{}} }

// Plan adds the read of a chart's ring to pipe, unless it was read in now's second: then the
// decoder returns that read and pipe gets nothing.
func (c *Charts) Plan(ctx context.Context, pipe redis.Pipeliner, id ChartID, now time.Time) func() domain.History {
	second := now.Unix()
	c.mu.Lock()
	last, ok := c.last[id]
	c.mu.Unlock()
	if ok && last.second == second {
		return func() domain.History { return last.h }
	}
	read := PlanHistory(ctx, pipe, c.keys, id.Kind, id.Name, id.Range, now)
	return func() domain.History {
		h := read()
		c.mu.Lock()
		c.last[id] = chartRead{second: second, h: h}
		c.mu.Unlock()
		return h
	}
}

// Forget drops the reads of charts not in asked (the charts somebody still watches).
func (c *Charts) Forget(asked map[ChartID]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.last {
		if !asked[id] {
			delete(c.last, id)
		}
	}
}
