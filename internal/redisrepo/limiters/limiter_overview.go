package limiters

import (
	"context"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Overview is the live path's read of every limiter's view, for the limiters overview. It
// remembers the names the index held at its previous read (read again on the same pipeline),
// so a new policy shows one read after it was saved; the built-in policies (DefaultLimiter…)
// are always there. Only the watcher reads it.
type Overview struct {
	views *LimiterViews

	mu    sync.Mutex
	names []string // the saved policies and the built-in ones at the last read
}

// NewOverview returns the overview's reader over views, whose memory of each limiter's
// policy and clients it shares with the limiter topics.
func NewOverview(views *LimiterViews) *Overview { return &Overview{views: views} }

// Plan adds the overview's reads to pipe and marks each limiter it reads in watched (for
// LimiterViews.Forget). The decoder reports ok false while the names or a limiter's policy
// are still being learnt, or a limiter's new clients (LimiterViews.PlanLive): nothing to
// publish that read. On a read again (again), learnt clients no longer hold it back.
func (o *Overview) Plan(ctx context.Context, pipe redis.Pipeliner, watched map[string]bool, again bool) func() ([]domain.LimiterView, bool) {
	o.mu.Lock()
	names := o.names
	o.mu.Unlock()
	index := pipe.SMembers(ctx, o.views.keys.LimiterIndex())
	reads := make([]func() (domain.LimiterView, bool, bool), len(names))
	for i, name := range names {
		reads[i] = o.views.PlanLive(ctx, pipe, name)
		watched[name] = true
	}
	return func() ([]domain.LimiterView, bool) {
		next := append(index.Val(), BuiltinNames()...)
		slices.Sort(next)
		o.mu.Lock()
		o.names = slices.Compact(next)
		o.mu.Unlock()
		if len(names) == 0 {
			return nil, false
		}
		views := make([]domain.LimiterView, 0, len(reads))
		complete := true
		for _, read := range reads {
			v, seen, whole := read()
			complete = complete && seen && (whole || again)
			if v.Exists {
				views = append(views, v)
			}
		}
		return views, complete
	}
}
