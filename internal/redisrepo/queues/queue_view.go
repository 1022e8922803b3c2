package queues

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// planQueueView adds to pipe the reads of a queue's page (its settings, queueViewScript, one
// HGETALL per minute of throughput, consumersScript: 9 commands at most, no round trip of its
// own) and returns the decoder. now is cut to the second, and the view holds absolute times only (the
// browser shows them relative), so an idle queue's view stays equal from tick to tick.
func PlanQueueView(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, queue string, now time.Time) func() domain.QueueView {
	nowMs := now.UnixMilli() / 1000 * 1000
	key := keys.Queue(queue)
	settings := pipe.HGetAll(ctx, keys.QueueSettings(queue))
	script := queueViewScript.Run(ctx, pipe, []string{key, keys.QueueProcessing(queue), keys.QueueDead(queue), keys.QueueAttempts(queue),
		keys.QueueRetry(queue), keys.QueueScores(queue)},
		nowMs, domain.QueueShown, domain.MaxPriority+1, int64(domain.PriorityFactor))
	orphans := pipe.ZCard(ctx, keys.QueueOrphans(queue))
	paused := pipe.Exists(ctx, keys.QueuePaused(queue))
	consumers := planConsumers(ctx, pipe, keys, queue, time.UnixMilli(nowMs))
	first := time.UnixMilli(nowMs - domain.ThroughputSeconds*1000).UTC()
	var tput []*redis.MapStringStringCmd
	var minutes []int64
	for m := first.Unix() / 60; m <= (nowMs/1000-1)/60; m++ {
		minutes = append(minutes, m)
		tput = append(tput, pipe.HGetAll(ctx, keys.QueueThroughput(queue, time.Unix(m*60, 0))))
	}
	return func() domain.QueueView {
		v := domain.QueueView{Queue: queue, Key: key, PayloadKey: keys.QueueJobs(queue), Settings: decodeQueueSettings(queue, settings.Val()), OldestAtMs: -1,
			Paused: paused.Val() == 1, Orphans: orphans.Val(), Consumers: consumers()}
		r, _ := script.Val().([]any)
		if len(r) == 12 {
			v.Waiting, v.Processing, v.Dead = toInt(r[0]), toInt(r[1]), toInt(r[2])
			v.InFlight, v.DeadJobs = listedJobs(r[8]), listedJobs(r[9])
		} else {
			r = make([]any, 12)
		}
		delayed := v.Settings.Kind == domain.DelayedQueue
		v.Head = DecodeJobs(scoredPairs(r[7]), delayed)
		if delayed {
			v.Due = toInt(r[3])
			v.Scheduled = v.Waiting - v.Due
			v.NextDue = DecodeJobs(scoredPairs(r[6]), true)
			if len(v.Head) > 0 && v.Head[0].AtMs <= nowMs && v.Due > 0 {
				v.OldestAtMs = v.Head[0].AtMs
			}
		} else {
			v.Due = v.Waiting
			counts, _ := r[4].([]any)
			oldest, _ := r[5].([]any)
			sum := int64(0)
			for p := range v.ByPriority {
				if p < len(counts) {
					v.ByPriority[p] = toInt(counts[p])
				}
				sum += v.ByPriority[p]
				if p < len(oldest) {
					score, err := strconv.ParseFloat(toString(oldest[p]), 64)
					if _, at, ok := domain.ScorePriority(score); err == nil && ok && (v.OldestAtMs < 0 || at < v.OldestAtMs) {
						v.OldestAtMs = at
					}
				}
			}
			v.Other = max(v.Waiting-sum, 0)
			v.Scheduled, v.NextDue = toInt(r[10]), retryJobs(r[11])
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
				if count != 0 { // else it stays 0, so an idle queue's view stays equal
					v.ThroughputFromSec = firstSec
				}
			}
		}
		return v
	}
}

// scoredPairs reads a script's {member, score, ...} reply as a ZSET range.
func scoredPairs(v any) []redis.Z {
	flat, _ := v.([]any)
	out := make([]redis.Z, 0, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		score, err := strconv.ParseFloat(toString(flat[i+1]), 64)
		if err != nil {
			continue
		}
		out = append(out, redis.Z{Member: toString(flat[i]), Score: score})
	}
	return out
}

func toInt(v any) int64 {
	n, _ := strconv.ParseInt(toString(v), 10, 64)
	return n
}

// DecodeJobs turns a ZSET range into jobs; on a priority queue AtMs is the enqueue time, on a
// delayed queue the run-at time.
func DecodeJobs(zs []redis.Z, delayed bool) []domain.QueueJob {
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

// listedJobs reads queueViewScript's {id, ms, attempts, ...}.
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

// PlanQueueSummary adds the reads of a queue's line on the overview.
func PlanQueueSummary(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, queue string, now time.Time) func() domain.QueueSummary {
	key := keys.Queue(queue)
	typ := pipe.Type(ctx, key)
	settings := pipe.HGet(ctx, keys.QueueSettings(queue), "kind")
	waiting := pipe.ZCard(ctx, key)
	due := pipe.ZCount(ctx, key, "-inf", strconv.FormatInt(now.UnixMilli()/1000*1000, 10))
	processing := pipe.ZCard(ctx, keys.QueueProcessing(queue))
	dead := pipe.ZCard(ctx, keys.QueueDead(queue))
	paused := pipe.Exists(ctx, keys.QueuePaused(queue))
	return func() domain.QueueSummary {
		s := domain.QueueSummary{Queue: queue, Kind: decodeQueueSettings(queue, map[string]string{"kind": settings.Val()}).Kind,
			Waiting: waiting.Val(), Due: waiting.Val(), Processing: processing.Val(), Dead: dead.Val(), Paused: paused.Val() == 1}
		if s.Kind == domain.DelayedQueue {
			s.Due = due.Val()
		}
		if t := typ.Val(); t != "zset" && t != "none" && t != "" {
			s.WrongType, s.Waiting, s.Due = t, 0, 0
		}
		return s
	}
}

func (q *Queues) Stats(ctx context.Context, queue string) (domain.QueueStats, error) {
	v, err := q.View(ctx, queue)
	if err != nil {
		return domain.QueueStats{}, err
	}
	return StatsOf(v, q.now().UnixMilli()), nil
}

// View reads a queue as its page shows it, in one round trip.
func (q *Queues) View(ctx context.Context, queue string) (domain.QueueView, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return domain.QueueView{}, err
	}
	pipe := q.Rdb.Pipeline()
	read := PlanQueueView(ctx, pipe, q.keys, queue, q.now())
	if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
		return domain.QueueView{}, store.OpError("queues.Queues.View", err)
	}
	return read(), nil
}

// StatsOf turns a queue's view into the API's stats, its oldest job's age seen at nowMs.
func StatsOf(v domain.QueueView, nowMs int64) domain.QueueStats {
	s := domain.QueueStats{Queue: v.Queue, Kind: v.Settings.Kind, MaxAttempts: v.Settings.MaxAttempts, Total: v.Waiting,
		Due: v.Due, Scheduled: v.Scheduled, Processing: v.Processing, Dead: v.Dead, Paused: v.Paused}
	if v.Settings.Kind == domain.PriorityQueue {
		s.Total += v.Scheduled // its retries wait beside the queue's set, not in it
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
	if v.OldestAtMs >= 0 {
		age := max(nowMs-v.OldestAtMs, 0) / 1000 * 1000
		s.OldestAgeMs = &age
	}
	return s
}

func (q *Queues) Queues(ctx context.Context) ([]string, error) {
	return q.found.NamesWarm(ctx, store.KindQueue)
}

func (q *Queues) Summaries(ctx context.Context) ([]domain.QueueSummary, error) {
	names, err := q.found.NamesWarm(ctx, store.KindQueue)
	if err != nil {
		return nil, err
	}
	pipe := q.Rdb.Pipeline()
	read := PlanSummaries(ctx, pipe, q.keys, names, q.now())
	if len(names) > 0 {
		if err := store.ExecTyped(ctx, q.Rdb, pipe); err != nil {
			return nil, store.OpError("queues.Queues.Summaries", err)
		}
	}
	return read(), nil
}

// PlanSummaries adds the reads of the queues list to pipe: each queue's depths. The
// queues topic and QueueService.Summaries both use it.
func PlanSummaries(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, queues []string, now time.Time) func() []domain.QueueSummary {
	reads := make([]func() domain.QueueSummary, len(queues))
	for i, q := range queues {
		reads[i] = PlanQueueSummary(ctx, pipe, keys, q, now)
	}
	return func() []domain.QueueSummary {
		out := make([]domain.QueueSummary, len(reads))
		for i, read := range reads {
			out[i] = read()
		}
		return out
	}
}
