package history

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Snapshot reads what /metrics reports about queues, limiters, locks and boards: stateless,
// one pipelined round trip, whatever pages are open (domain.BusinessReader).
type Business struct {
	rdb   redis.UniversalClient
	keys  store.Keys
	clock domain.Clock
	found *store.Discovery
}

var _ domain.BusinessReader = (*Business)(nil)

func NewBusiness(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks) *Business {
	return &Business{rdb: rdb, keys: keys, clock: c.Local(), found: found}
}

// Snapshot reads at most limit queues, boards and locks (the first by name) and every
// limiter the history recorder counted (at most limit reported), in one round trip: about
// 19 commands per queue, one per board and lock, and two HGETALLs of the totals. Returns
// EUNAVAILABLE.
func (b *Business) Snapshot(ctx context.Context, limit int) (domain.Business, error) {
	out := domain.Business{Dropped: map[domain.HistoryKind]int{}}
	queueNames, err := b.found.NamesWarm(ctx, store.KindQueue)
	if err != nil {
		return out, err
	}
	cut := func(kind domain.HistoryKind, queueNames []string) []string {
		if len(queueNames) > limit {
			out.Dropped[kind] += len(queueNames) - limit
			return queueNames[:limit]
		}
		return queueNames
	}
	queueNames = cut(domain.HistoryQueue, queueNames)
	boards := cut(domain.HistoryBoard, b.found.Names(store.KindBoard))
	locks := b.found.Names(store.KindLock)
	if len(locks) > limit {
		locks = locks[:limit]
	}
	now := b.clock.Now()
	pipe := b.rdb.Pipeline()
	queueReads := make([]func() domain.QueueCounts, len(queueNames))
	durations := make([]*redis.MapStringStringCmd, len(queueNames))
	for i, q := range queueNames {
		queueReads[i] = planQueueCounts(ctx, pipe, b.keys, q, now)
		durations[i] = pipe.HGetAll(ctx, b.keys.QueueDurationTotals(q))
	}
	queueTotals := pipe.HGetAll(ctx, b.keys.HistoryTotals(domain.HistoryQueue))
	limiterTotals := pipe.HGetAll(ctx, b.keys.HistoryTotals(domain.HistoryLimiter))
	players := make([]*redis.IntCmd, len(boards))
	for i, board := range boards {
		players[i] = pipe.ZCard(ctx, b.keys.Leaderboard(board))
	}
	held := make([]*redis.IntCmd, len(locks))
	for i, lock := range locks {
		held[i] = pipe.Exists(ctx, b.keys.Lock(lock))
	}
	pipe.Ping(ctx) // so an empty Redis still answers whether it is there
	// A board or queue key of another type counts nothing, and the scrape goes on.
	if err := store.ExecTyped(ctx, b.rdb, pipe); err != nil {
		return out, store.OpError("history.Business.Snapshot", err)
	}
	qt := splitTotals(queueTotals.Val())
	for i, read := range queueReads {
		c := read()
		t := qt[c.Queue]
		c.Enqueued, c.Completed, c.Failed = t["enqueued"], t["completed"], t["failed"]
		c.Durations = queues.DecodeDurationTotals(durations[i].Val())
		out.Queues = append(out.Queues, c)
	}
	lt := splitTotals(limiterTotals.Val())
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range lt {
			if !yield(name) {
				return
			}
		}
	})
	for _, name := range cut(domain.HistoryLimiter, names) {
		out.Limiters = append(out.Limiters, domain.LimiterCounts{Limiter: name, Allowed: lt[name]["allowed"], Rejected: lt[name]["rejected"]})
	}
	for i, board := range boards {
		out.Boards = append(out.Boards, domain.BoardCounts{Board: board, Players: players[i].Val()})
	}
	for _, h := range held {
		out.LocksHeld += h.Val()
	}
	return out, nil
}

// splitTotals reads a totals hash ("<series>:<name>" -> count) as name -> series -> count.
func splitTotals(fields map[string]string) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for field, v := range fields {
		series, name, ok := strings.Cut(field, ":")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || series == "bucket" {
			continue
		}
		if out[name] == nil {
			out[name] = map[string]int64{}
		}
		out[name][series] = n
	}
	return out
}

// planQueueCounts adds the reads of a queue's counts by state and the age of its oldest
// waiting job, as the queue's API reports them (StatsOf of planQueueView), without the lists.
func planQueueCounts(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, queue string, now time.Time) func() domain.QueueCounts {
	nowMs := now.UnixMilli() / 1000 * 1000
	key := keys.Queue(queue)
	summary := queues.PlanQueueSummary(ctx, pipe, keys, queue, now)
	var heads [domain.MaxPriority + 1]*redis.ZSliceCmd
	for p := range heads {
		lo, hi := strconv.FormatInt(int64(p)*domain.PriorityFactor, 10), "("+strconv.FormatInt(int64(p+1)*domain.PriorityFactor, 10)
		heads[p] = pipe.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{Min: lo, Max: hi, Count: 1})
	}
	first := pipe.ZRangeWithScores(ctx, key, 0, 0)
	return func() domain.QueueCounts {
		s := summary()
		c := domain.QueueCounts{Queue: queue, Waiting: s.Due, Scheduled: s.Waiting - s.Due, InFlight: s.Processing, Dead: s.Dead, OldestWaitingMs: -1,
			Paused: s.Paused}
		if s.Kind == domain.DelayedQueue {
			if zs := first.Val(); len(zs) == 1 && int64(zs[0].Score) <= nowMs && s.Due > 0 {
				c.OldestWaitingMs = (nowMs - int64(zs[0].Score)) / 1000 * 1000
			}
			return c
		}
		for p := range heads {
			if zs := heads[p].Val(); len(zs) == 1 {
				if _, at, ok := domain.ScorePriority(zs[0].Score); ok && (c.OldestWaitingMs < 0 || nowMs-at > c.OldestWaitingMs) {
					c.OldestWaitingMs = max(nowMs-at, 0)
				}
			}
		}
		if c.OldestWaitingMs > 0 {
			c.OldestWaitingMs = c.OldestWaitingMs / 1000 * 1000
		}
		return c
	}
}
