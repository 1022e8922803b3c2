package redisrepo

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// planQueueView adds to pipe every read of a queue's page (about 30 commands, no round trip of
// its own) and returns the decoder. The kind is read in the same pipeline, so the reads of
// both kinds are queued and the decoder uses those of the queue's kind. now is cut to the
// second: the view changes at most once a second while nothing else changes.
func planQueueView(ctx context.Context, pipe redis.Pipeliner, keys Keys, queue string, now time.Time) func() domain.QueueView {
	nowMs := now.UnixMilli() / 1000 * 1000
	key := keys.Queue(queue)
	settings := pipe.HGetAll(ctx, keys.QueueSettings(queue))
	waiting := pipe.ZCard(ctx, key)
	processing := pipe.ZCard(ctx, keys.QueueProcessing(queue))
	dead := pipe.ZCard(ctx, keys.QueueDead(queue))
	orphans := pipe.ZCard(ctx, keys.QueueOrphans(queue))
	paused := pipe.Exists(ctx, keys.QueuePaused(queue))
	var lanes [domain.MaxPriority + 1]*redis.IntCmd
	var heads [domain.MaxPriority + 1]*redis.ZSliceCmd
	for p := range lanes {
		lo, hi := strconv.FormatInt(int64(p)*domain.PriorityFactor, 10), "("+strconv.FormatInt(int64(p+1)*domain.PriorityFactor, 10)
		lanes[p] = pipe.ZCount(ctx, key, lo, hi)
		heads[p] = pipe.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{Min: lo, Max: hi, Count: 1})
	}
	due := pipe.ZCount(ctx, key, "-inf", strconv.FormatInt(nowMs, 10))
	next := pipe.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{Min: "(" + strconv.FormatInt(nowMs, 10), Max: "+inf", Count: domain.QueueShown})
	head := pipe.ZRangeWithScores(ctx, key, 0, domain.QueueShown-1)
	lists := inFlightScript.EvalSha(ctx, pipe, []string{keys.QueueProcessing(queue), keys.QueueDead(queue), keys.QueueAttempts(queue)}, domain.QueueShown)
	first := time.UnixMilli(nowMs - domain.ThroughputSeconds*1000).UTC()
	var tput []*redis.MapStringStringCmd
	var minutes []int64
	for m := first.Unix() / 60; m <= (nowMs/1000-1)/60; m++ {
		minutes = append(minutes, m)
		tput = append(tput, pipe.HGetAll(ctx, keys.QueueThroughput(queue, time.Unix(m*60, 0))))
	}
	return func() domain.QueueView {
		v := domain.QueueView{Queue: queue, Key: key, PayloadKey: keys.QueueJobs(queue), Settings: decodeQueueSettings(queue, settings.Val()), NowMs: nowMs,
			Waiting: waiting.Val(), Processing: processing.Val(), Dead: dead.Val(), Orphans: orphans.Val(), OldestAgeMs: -1, Paused: paused.Val() == 1}
		delayed := v.Settings.Kind == domain.DelayedQueue
		v.Head = decodeJobs(head.Val(), delayed)
		if delayed {
			v.Due = due.Val()
			v.Scheduled = v.Waiting - v.Due
			v.NextDue = decodeJobs(next.Val(), true)
			if len(v.Head) > 0 && v.Head[0].AtMs <= nowMs && v.Due > 0 {
				v.OldestAgeMs = nowMs - v.Head[0].AtMs
			}
		} else {
			v.Due = v.Waiting
			sum := int64(0)
			for p := range lanes {
				v.ByPriority[p] = lanes[p].Val()
				sum += v.ByPriority[p]
				if zs := heads[p].Val(); len(zs) == 1 {
					if _, at, ok := domain.ScorePriority(zs[0].Score); ok && (v.OldestAgeMs < 0 || nowMs-at > v.OldestAgeMs) {
						v.OldestAgeMs = max(nowMs-at, 0)
					}
				}
			}
			v.Other = max(v.Waiting-sum, 0)
		}
		if v.OldestAgeMs > 0 {
			v.OldestAgeMs = v.OldestAgeMs / 1000 * 1000
		}
		if ls, _ := lists.Val().([]any); len(ls) == 2 {
			v.InFlight, v.DeadJobs = listedJobs(ls[0]), listedJobs(ls[1])
		}
		v.Enqueued = make([]int64, domain.ThroughputSeconds)
		v.Completed = make([]int64, domain.ThroughputSeconds)
		firstSec := first.Unix()
		for i, m := range minutes {
			for field, n := range tput[i].Val() {
				if len(field) < 2 {
					continue
				}
				sec, err := strconv.ParseInt(field[1:], 10, 64)
				count, cerr := strconv.ParseInt(n, 10, 64)
				at := m*60 + sec - firstSec
				if err != nil || cerr != nil || at < 0 || at >= domain.ThroughputSeconds {
					continue
				}
				switch field[0] {
				case 'e':
					v.Enqueued[at] = count
				case 'c':
					v.Completed[at] = count
				}
			}
		}
		return v
	}
}

// decodeJobs turns a ZSET range into jobs; on a priority queue AtMs is the enqueue time, on a
// delayed queue the run-at time.
func decodeJobs(zs []redis.Z, delayed bool) []domain.QueueJob {
	out := make([]domain.QueueJob, 0, len(zs))
	for _, z := range zs {
		id, _ := z.Member.(string)
		j := domain.QueueJob{ID: id, Score: z.Score, Priority: -1}
		if delayed {
			j.AtMs = int64(z.Score)
		} else if p, at, ok := domain.ScorePriority(z.Score); ok {
			j.Priority, j.AtMs = p, at
		}
		out = append(out, j)
	}
	return out
}

// listedJobs reads inFlightScript's {id, ms, attempts, ...}.
func listedJobs(v any) []domain.QueueJob {
	flat, _ := v.([]any)
	out := make([]domain.QueueJob, 0, len(flat)/3)
	for i := 0; i+2 < len(flat); i += 3 {
		id, _ := flat[i].(string)
		ms, _ := strconv.ParseFloat(toString(flat[i+1]), 64)
		n, _ := strconv.ParseInt(toString(flat[i+2]), 10, 64)
		out = append(out, domain.QueueJob{ID: id, Score: ms, Priority: -1, AtMs: int64(ms), Attempts: n})
	}
	return out
}

func toString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case int64:
		return strconv.FormatInt(s, 10)
	default:
		return ""
	}
}

// planQueueSummary adds the reads of a queue's line on the overview.
func planQueueSummary(ctx context.Context, pipe redis.Pipeliner, keys Keys, queue string, now time.Time) func() domain.QueueSummary {
	key := keys.Queue(queue)
	settings := pipe.HGet(ctx, keys.QueueSettings(queue), "kind")
	waiting := pipe.ZCard(ctx, key)
	due := pipe.ZCount(ctx, key, "-inf", strconv.FormatInt(now.UnixMilli()/1000*1000, 10))
	processing := pipe.ZCard(ctx, keys.QueueProcessing(queue))
	dead := pipe.ZCard(ctx, keys.QueueDead(queue))
	return func() domain.QueueSummary {
		s := domain.QueueSummary{Queue: queue, Kind: decodeQueueSettings(queue, map[string]string{"kind": settings.Val()}).Kind,
			Waiting: waiting.Val(), Due: waiting.Val(), Processing: processing.Val(), Dead: dead.Val()}
		if s.Kind == domain.DelayedQueue {
			s.Due = due.Val()
		}
		return s
	}
}

func (q *Queues) Stats(ctx context.Context, queue string) (domain.QueueStats, error) {
	v, err := q.View(ctx, queue)
	if err != nil {
		return domain.QueueStats{}, err
	}
	return StatsOf(v), nil
}

// View reads a queue as its page shows it, in one round trip.
func (q *Queues) View(ctx context.Context, queue string) (domain.QueueView, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return domain.QueueView{}, err
	}
	pipe := q.rdb.Pipeline()
	read := planQueueView(ctx, pipe, q.keys, queue, q.now())
	if err := exec(ctx, q.rdb, pipe); err != nil {
		return domain.QueueView{}, opError("redisrepo.Queues.View", err)
	}
	return read(), nil
}

// StatsOf turns a queue's view into the API's stats.
func StatsOf(v domain.QueueView) domain.QueueStats {
	s := domain.QueueStats{Queue: v.Queue, Kind: v.Settings.Kind, MaxAttempts: v.Settings.MaxAttempts, Total: v.Waiting,
		Due: v.Due, Scheduled: v.Scheduled, Processing: v.Processing, Dead: v.Dead}
	if v.Settings.Kind == domain.PriorityQueue {
		s.ByPriority = map[string]int64{}
		for p, n := range v.ByPriority {
			s.ByPriority[strconv.Itoa(p)] = n
		}
		if v.Other > 0 {
			s.ByPriority["other"] = v.Other
		}
	}
	for _, j := range v.NextDue {
		s.NextDue = append(s.NextDue, domain.ScheduledJobResponse{ID: j.ID, RunAt: time.UnixMilli(j.AtMs).UTC()})
	}
	if v.OldestAgeMs >= 0 {
		age := v.OldestAgeMs
		s.OldestAgeMs = &age
	}
	return s
}

func (q *Queues) Queues(ctx context.Context) ([]string, error) {
	return q.found.namesWarm(ctx, queueKeys)
}

func (q *Queues) Summaries(ctx context.Context) ([]domain.QueueSummary, error) {
	names, err := q.found.namesWarm(ctx, queueKeys)
	if err != nil {
		return nil, err
	}
	pipe := q.rdb.Pipeline()
	read := planQueueSummaries(ctx, pipe, q.keys, names, q.now())
	if len(names) > 0 {
		if err := exec(ctx, q.rdb, pipe); err != nil {
			return nil, opError("redisrepo.Queues.Summaries", err)
		}
	}
	return read(), nil
}
