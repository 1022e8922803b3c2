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
	"slices"
	"sync"
	"time"

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

	mu           sync.Mutex
	limiterNames []string                   // the saved policies at the last read of TopicLimiters
	histories    map[string]historySnapshot // history topics read lately, by topic
}

// historySnapshot is a history topic's last read and the wall-clock second it was made in.
type historySnapshot struct {
	second int64
	h      domain.History
}

// newSnapshots returns the live watcher's reader of topics kept in rdb under keys. It keeps
// state between reads (what it learnt of limiters and locks): only the watcher calls Read;
// pages call the services' stateless reads.
func newSnapshots(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks, adopted *sources.Sources) *Snapshots {
	return &Snapshots{sources: adopted, rdb: rdb, keys: keys, clock: c.Local(), found: found, locks: locks.NewLockDirectory(found), limiters: limiters.NewLimiterViews(keys, c.Script)}
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
			decoders[topic] = s.planHistory(ctx, pipe, topic, kind, name, r, now)
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
			decoders[topic] = s.planLimiters(ctx, pipe, watchedLimiters)
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
	s.forgetHistories(topics)
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

// planLimiters adds the view of every limiter, for the overview. The names are those the
// index held at the previous read (read again on this pipeline), so a new policy shows one
// tick after it was saved; the built-in policies (DefaultLimiter…) are always there.
func (s *Snapshots) planLimiters(ctx context.Context, pipe redis.Pipeliner, watched map[string]bool) func() any {
	s.mu.Lock()
	names := s.limiterNames
	s.mu.Unlock()
	index := pipe.SMembers(ctx, s.keys.LimiterIndex())
	reads := make([]func() (domain.LimiterView, bool), len(names))
	for i, name := range names {
		reads[i] = s.limiters.PlanLive(ctx, pipe, name)
		watched[name] = true
	}
	return func() any {
		next := index.Val()
		next = append(next, limiters.BuiltinNames()...)
		slices.Sort(next)
		s.mu.Lock()
		s.limiterNames = slices.Compact(next)
		s.mu.Unlock()
		if len(names) == 0 {
			return nil // the names are not known yet: nothing to publish this tick
		}
		views := make([]domain.LimiterView, 0, len(reads))
		complete := true
		for _, read := range reads {
			v, ok := read()
			complete = complete && ok
			if v.Exists {
				views = append(views, v)
			}
		}
		if !complete {
			return nil // a limiter's first read only learns its policy: publish the next one
		}
		return views
	}
}

// PlanHistory reads a chart's ring at most once per second of the clock: a ring is up to
// 46 KB and changes once per 10 s bucket, while the watcher ticks every 250 ms or faster.
// Within the second, the last read stands; a bucket that lands shows within a second.
func (s *Snapshots) planHistory(ctx context.Context, pipe redis.Pipeliner, topic string, kind domain.HistoryKind, name string, r domain.HistoryRange, now time.Time) func() any {
	second := now.Unix()
	s.mu.Lock()
	last, ok := s.histories[topic]
	s.mu.Unlock()
	if ok && last.second == second {
		return func() any { return last.h }
	}
	read := history.PlanHistory(ctx, pipe, s.keys, kind, name, r, now)
	return func() any {
		h := read()
		s.mu.Lock()
		if s.histories == nil {
			s.histories = map[string]historySnapshot{}
		}
		s.histories[topic] = historySnapshot{second: second, h: h}
		s.mu.Unlock()
		return h
	}
}

// forgetHistories drops the reads of history topics no longer asked for.
func (s *Snapshots) forgetHistories(topics []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.histories) == 0 {
		return
	}
	asked := make(map[string]bool, len(topics))
	for _, t := range topics {
		asked[t] = true
	}
	for t := range s.histories {
		if !asked[t] {
			delete(s.histories, t)
		}
	}
}
