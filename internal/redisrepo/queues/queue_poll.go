package queues

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

func (q *Queues) Poll(ctx context.Context, queue string, opt domain.PollOptions) (domain.Delivery, bool, error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return domain.Delivery{}, false, err
	}
	set, err := q.cachedSettings(ctx, queue)
	if err != nil {
		return domain.Delivery{}, false, err
	}
	if err := opt.Validate(set.Kind); err != nil {
		return domain.Delivery{}, false, err
	}
	switch {
	case opt.Lease > 0:
		return q.pollLeased(ctx, queue, set.Kind, opt.Lease, opt.Consumer)
	case opt.Wait > 0:
		return q.take(ctx, queue, opt.Wait)
	case set.Kind == domain.DelayedQueue:
		vals, err := popDueScript.Run(ctx, q.Rdb, []string{q.keys.Queue(queue), q.keys.QueuePaused(queue)}, q.now().UnixMilli()).Slice()
		if errors.Is(err, redis.Nil) {
			return domain.Delivery{}, false, nil
		} else if err != nil {
			return domain.Delivery{}, false, store.OpWriteError("queues.Queues.Poll", err)
		}
		if len(vals) != 2 {
			return domain.Delivery{}, false, fmt.Errorf("queues.Queues.Poll: unexpected reply %v", vals)
		}
		id, _ := vals[0].(string)
		return q.finishTaken(ctx, queue, id, vals[1])
	default:
		now := q.now()
		field := tputField(now, 'c')
		keys := append(append([]string{q.keys.Queue(queue)}, q.takenKeys(queue, now)...), q.keys.QueuePaused(queue), q.keys.QueueRetry(queue))
		vals, err := pollScript.Run(ctx, q.Rdb, keys, q.leaseNow(), domain.CompletedRetention.Milliseconds(), domain.CompletedKept,
			field, queueThroughputTTL.Milliseconds(), now.UnixMilli()).Slice()
		if errors.Is(err, redis.Nil) {
			return domain.Delivery{}, false, nil
		} else if err != nil {
			return domain.Delivery{}, false, store.OpWriteError("queues.Queues.Poll", err)
		}
		if len(vals) != 3 {
			return domain.Delivery{}, false, fmt.Errorf("queues.Queues.Poll: unexpected reply %v", vals)
		}
		return delivery(queue, set.Kind, vals[0], vals[1], vals[2]), true, nil
	}
}

// Take is the article's blocking take: BZPOPMIN on a connection of the blocking client. No
// Script can wrap a blocking command, so the pause is checked before the wait, and a job
// popped by a take that was waiting when the queue paused goes back to its place
// (giveBackScript). On a paused queue a take waits as on an empty one: until the queue is
// resumed (by this process; another's resume is seen when the wait ends) and a job comes, or
// wait is over, so a consumer's loop never spins.
func (q *Queues) take(ctx context.Context, queue string, wait time.Duration) (domain.Delivery, bool, error) {
	deadline := time.Now().Add(wait)
	for {
		if err := q.promoteRetries(ctx, queue); err != nil {
			return domain.Delivery{}, false, err
		}
		resumed := q.resumedSignal()
		paused, err := q.Paused(ctx, queue)
		if err != nil {
			return domain.Delivery{}, false, err
		}
		if paused {
			timer := time.NewTimer(time.Until(deadline))
			select {
			case <-resumed:
				timer.Stop()
				continue
			case <-timer.C:
				return domain.Delivery{}, false, nil
			case <-ctx.Done():
				timer.Stop()
				return domain.Delivery{}, false, ctx.Err()
			}
		}
		left := time.Until(deadline).Round(time.Second) // BZPOPMIN's timeout, whole seconds here
		if left < time.Second {
			return domain.Delivery{}, false, nil
		}
		z, err := q.blocking.BZPopMin(ctx, left, q.keys.Queue(queue)).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return domain.Delivery{}, false, nil
		case ctx.Err() != nil:
			return domain.Delivery{}, false, ctx.Err()
		case err != nil:
			return domain.Delivery{}, false, store.OpWriteError("queues.Queues.take", err)
		}
		id, _ := z.Member.(string)
		if paused, err := q.Paused(ctx, queue); err == nil && paused {
			if err := giveBackScript.Run(ctx, q.Rdb, []string{q.keys.Queue(queue)}, z.Score, id).Err(); err == nil {
				continue // given back: wait out the pause like any other take
			}
			// Not given back: hand the job over rather than lose it.
		}
		return q.finishTaken(ctx, queue, id, z.Score)
	}
}

// finishTaken does, after a plain ZPOPMIN-like take (POP_DUE, BZPOPMIN), what pollScript does
// in its step (takenScript). The job is ours alone already, so a second round trip changes
// nothing for anyone else. score is the taken job's score: the payload is handed over only
// when it was bound to it.
func (q *Queues) finishTaken(ctx context.Context, queue, id string, score any) (domain.Delivery, bool, error) {
	now := q.now()
	payload, err := takenScript.Run(ctx, q.Rdb, q.takenKeys(queue, now), id, q.leaseNow(), domain.CompletedRetention.Milliseconds(),
		domain.CompletedKept, tputField(now, 'c'), queueThroughputTTL.Milliseconds()).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		// The job is taken; only its bookkeeping failed. Hand it over without its payload
		// rather than lose it.
		return delivery(queue, "", id, score, nil), true, nil
	}
	set, _ := q.cachedSettings(ctx, queue)
	return delivery(queue, set.Kind, id, score, payload), true, nil
}

// takenKeys are the keys of luaTaken, in its order.
func (q *Queues) takenKeys(queue string, now time.Time) []string {
	return []string{q.keys.QueueJobs(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue), q.keys.QueueLeases(queue),
		q.keys.QueueErrors(queue), q.keys.QueueCompleted(queue), q.keys.QueueAckTokens(queue), q.keys.QueueThroughput(queue, now)}
}

func (q *Queues) pollLeased(ctx context.Context, queue string, kind domain.QueueKind, lease time.Duration, consumer string) (domain.Delivery, bool, error) {
	ds, err := q.pollLeasedN(ctx, queue, kind, lease, 1, consumer)
	if err != nil || len(ds) == 0 {
		return domain.Delivery{}, false, err
	}
	return ds[0], true, nil
}

// PollBatch leases up to n jobs (1..domain.MaxBatchPoll) in one round trip, each with a
// lease token of its own: n lease scripts, each atomic as Poll's. Fewer come back when the
// queue has fewer due.
func (q *Queues) PollBatch(ctx context.Context, queue string, n int, lease time.Duration, consumer string) ([]domain.Delivery, error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return nil, err
	}
	if err := domain.ValidateBatch("count", n, domain.MaxBatchPoll); err != nil {
		return nil, err
	}
	set, err := q.cachedSettings(ctx, queue)
	if err != nil {
		return nil, err
	}
	if lease == 0 {
		return nil, domain.Errorf(domain.EINVALID, "a poll batch needs a lease: lease_ms from %d to %d", domain.MinLease.Milliseconds(), domain.MaxLease.Milliseconds())
	}
	if err := (domain.PollOptions{Lease: lease}).Validate(set.Kind); err != nil {
		return nil, err
	}
	return q.pollLeasedN(ctx, queue, set.Kind, lease, n, consumer)
}

// pollLeasedN runs n lease scripts in one pipeline and returns the deliveries made, each
// lease recorded as consumer's.
func (q *Queues) pollLeasedN(ctx context.Context, queue string, kind domain.QueueKind, lease time.Duration, n int, consumer string) ([]domain.Delivery, error) {
	due := ""
	if kind == domain.DelayedQueue {
		due = strconv.FormatInt(q.now().UnixMilli(), 10)
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueJobs(queue), q.keys.QueueAttempts(queue),
		q.keys.QueueScores(queue), q.keys.QueueLeases(queue), q.keys.QueuePaused(queue), q.keys.QueueRetry(queue),
		q.keys.QueueHolders(queue), q.keys.QueueConsumers(queue), q.keys.QueueTypes(queue)}
	cmds := make([]*redis.Cmd, n)
	tokens := make([]string, n)
	now := q.now()
	nowMs := now.UnixMilli()
	if n == 1 && !q.bookkept.Due(queue, now) {
		// One script and nothing beside it: straight on the client (Run: EVALSHA, EVAL if
		// Redis forgot it), cheaper than a pipeline of one.
		tokens[0] = locks.NewToken()
		cmds[0] = leaseScript.Run(ctx, q.Rdb, keys, append([]any{due, q.leaseNow(), lease.Milliseconds(), tokens[0], nowMs}, consumerArgs(consumer)...)...)
		if err := cmds[0].Err(); err != nil && !errors.Is(err, redis.Nil) {
			return nil, store.OpWriteError("queues.Queues.pollLeasedN", err)
		}
	} else {
		err := store.ReplicaWait{}.Write(ctx, q.Rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
			for i := range cmds {
				tokens[i] = locks.NewToken()
				cmds[i] = leaseScript.Run(ctx, pipe, keys, append([]any{due, q.leaseNow(), lease.Milliseconds(), tokens[i], nowMs}, consumerArgs(consumer)...)...)
			}
		}, q.index(ctx, queue, now)) // the reaper must know this queue
		if err != nil {
			// A lost answer leaves the jobs leased to nobody: the reaper gives them back after the lease.
			return nil, store.OpWriteError("queues.Queues.pollLeasedN", err)
		}
	}
	var out []domain.Delivery
	for i, cmd := range cmds {
		if errors.Is(cmd.Err(), redis.Nil) {
			break // the queue ran out: the later scripts found nothing either
		}
		vals, _ := cmd.Val().([]any)
		if len(vals) != 6 {
			return out, fmt.Errorf("queues.Queues.pollLeasedN: unexpected reply %v", cmd.Val())
		}
		d := delivery(queue, kind, vals[0], vals[1], vals[4])
		d.Type, _ = vals[5].(string)
		deadline, _ := vals[2].(int64)
		attempt, _ := vals[3].(int64)
		t := time.UnixMilli(deadline).UTC()
		d.LeaseDeadline, d.Attempt, d.Token = &t, int(attempt), tokens[i]
		out = append(out, d)
	}
	q.indexed(queue, now)
	return out, nil
}

// delivery builds a Delivery from a script's id, score (string or number) and stored payload
// (nil when none): the payload is handed over only when it was bound to this score (see
// boundPayload).
func delivery(queue string, kind domain.QueueKind, id, score, payload any) domain.Delivery {
	d := domain.Delivery{Queue: queue}
	d.ID, _ = id.(string)
	switch s := score.(type) {
	case string:
		d.Score, _ = strconv.ParseFloat(s, 64)
	case float64:
		d.Score = s
	case int64:
		d.Score = float64(s)
	}
	if kind == domain.PriorityQueue {
		if p, _, ok := domain.ScorePriority(d.Score); ok {
			d.Priority = &p
		}
	}
	if s, ok := payload.(string); ok && s != "" {
		d.Payload = boundPayload(s, d.Score, true)
	}
	return d
}
