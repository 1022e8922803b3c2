package redisrepo

import (
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/sources"
	"github.com/zpulse/zpulse/internal/redisrepo/store"

	"context"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Snapshots reads the state behind live topics for the watcher.
type Snapshots struct {
	rdb      redis.UniversalClient
	keys     store.Keys
	clock    domain.Clock
	found    *store.Discovery     // the names behind the boards and queues topics
	locks    *locks.LockDirectory // Names behind the locks topic
	limiters *limiters.LimiterViews
	sources  *sources.Sources

	overview *limiters.Overview
	charts   *history.Charts
}

// newSnapshots returns the live watcher's reader of topics kept in rdb under keys. It keeps
// state between reads (what it learnt of limiters and locks): only the watcher calls Read;
// pages call the services' stateless reads.
func newSnapshots(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks, adopted *sources.Sources) *Snapshots {
	views := limiters.NewLimiterViews(keys, c.Script)
	return &Snapshots{sources: adopted, rdb: rdb, keys: keys, clock: c.Local(), found: found, locks: locks.NewLockDirectory(found), limiters: views,
		overview: limiters.NewOverview(views), charts: history.NewCharts(keys)}
}

// Read reads every topic it knows in one pipelined round trip and returns a snapshot per
// topic: a domain.BoardTop for a board topic, a []domain.BoardSummary for TopicBoards, a
// domain.HeldLocks for TopicLocks, a domain.LimiterView for a limiter topic, a domain.History
// for a history topic. Topics it does
// not know are left out, and so are those whose first read only learns what to read (the
// locks' names, a limiter's policy and clients). With no known topic it still sends a PING,
// so the answer always says whether Redis is reachable. Returns EUNAVAILABLE when Redis
// cannot be reached.
func (s *Snapshots) Read(ctx context.Context, topics []string) (map[string]any, error) {
	now := s.clock.Now()
	pipe := s.rdb.Pipeline()
	decoders := make(map[string]func() any, len(topics))
	watchedLimiters := map[string]bool{}
	charts := map[history.ChartID]bool{}
	for _, topic := range topics {
		if board, period, n, ok := domain.ParseBoardTopic(topic); ok {
			read := boards.PlanTop(ctx, pipe, s.keys, board, period, n, now)
			decoders[topic] = func() any { return read() }
		} else if topic == domain.TopicBoards {
			read := boards.PlanSummaries(ctx, pipe, s.keys, s.found.Names(store.KindBoard), now)
			decoders[topic] = func() any { return read() }
		} else if topic == domain.TopicLocks {
			read := s.locks.Plan(ctx, pipe, s.keys)
			decoders[topic] = func() any {
				if held, ok := read(); ok {
					return held
				}
				return nil // the names are not known yet: nothing to publish this tick
			}
		} else if queue, ok := domain.ParseQueueTopic(topic); ok {
			read := queues.PlanQueueView(ctx, pipe, s.keys, queue, now)
			decoders[topic] = func() any { return read() }
		} else if kind, name, r, ok := domain.ParseHistoryTopic(topic); ok {
			id := history.ChartID{Kind: kind, Name: name, Range: r}
			read := s.charts.Plan(ctx, pipe, id, now)
			decoders[topic] = func() any { return read() }
			charts[id] = true
		} else if queue, id, ok := domain.ParseJobTopic(topic); ok {
			read := queues.PlanJob(ctx, pipe, s.keys, queue, id, now)
			decoders[topic] = func() any {
				if j, ok := read(); ok {
					return j
				}
				return domain.JobDetail{Queue: queue, ID: id} // gone: no state
			}
		} else if topic == domain.TopicQueues {
			read := queues.PlanSummaries(ctx, pipe, s.keys, s.found.Names(store.KindQueue), now)
			decoders[topic] = func() any { return read() }
		} else if topic == domain.TopicLimiters {
			read := s.overview.Plan(ctx, pipe, watchedLimiters)
			decoders[topic] = func() any {
				if views, ok := read(); ok {
					return views
				}
				return nil // the names are not known yet: nothing to publish this tick
			}
		} else if limiter, ok := domain.ParseLimiterTopic(topic); ok {
			read := s.limiters.PlanLive(ctx, pipe, limiter)
			decoders[topic] = func() any {
				if view, ok := read(); ok {
					return view
				}
				return nil
			}
			watchedLimiters[limiter] = true
		} else if name, ok := domain.ParseSourceTopic(topic); ok {
			src, err := s.sources.Source(ctx, name) // cached: a round trip once a second at most
			if err != nil {
				continue
			}
			read := sources.PlanSourceView(ctx, pipe, s.keys, s.found, src, now)
			decoders[topic] = func() any { return read() }
		}
	}
	s.limiters.Forget(watchedLimiters)
	s.charts.Forget(charts)
	if len(decoders) == 0 {
		pipe.Ping(ctx)
	}
	// Only an unreachable Redis fails the read: a command refused for one topic (say a key of
	// another type under leaderboard:) leaves that topic empty, not every page "unavailable".
	if err := store.OpError("redisrepo.Snapshots.Read", store.Exec(ctx, s.rdb, pipe)); domain.ErrorCode(err) == domain.EUNAVAILABLE || ctx.Err() != nil {
		return nil, err
	}
	snaps := make(map[string]any, len(decoders))
	for topic, decode := range decoders {
		if snap := decode(); snap != nil {
			snaps[topic] = snap
		}
	}
	return snaps, nil
}
