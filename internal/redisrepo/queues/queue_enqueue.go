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

func (q *Queues) Enqueue(ctx context.Context, queue string, job domain.NewJob) (domain.Enqueued, error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return domain.Enqueued{}, err
	}
	now := q.now()
	plan, err := q.planEnqueue(queue, &job, now)
	if err != nil {
		return domain.Enqueued{}, err
	}
	var cmd *redis.Cmd
	if q.replicas.N == 0 && !q.bookkept.Due(queue, now) {
		// Nothing to send beside the script: one call straight on the client (Run: EVALSHA,
		// EVAL if Redis forgot it), cheaper than a pipeline of one.
		cmd = plan(ctx, q.Rdb)
		err = cmd.Err()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
	} else {
		err = q.replicas.Write(ctx, q.Rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
			cmd = plan(ctx, pipe)
		}, q.index(ctx, queue, now))
	}
	notReplicated := errors.Is(err, store.ErrNotReplicated)
	if err != nil && !notReplicated {
		return domain.Enqueued{}, store.OpWriteError("queues.Queues.Enqueue", err)
	}
	q.indexed(queue, now)
	out, rerr := q.enqueued(queue, job, cmd)
	if rerr != nil {
		return domain.Enqueued{}, rerr
	}
	if notReplicated {
		return domain.Enqueued{}, fmt.Errorf("queues.Queues.Enqueue: job %q is enqueued (enqueueing it again with its id is safe), but %w", job.ID, err)
	}
	return out, nil
}

// EnqueueBatch enqueues up to domain.MaxBatchJobs jobs in one round trip: each job is its own
// enqueue script (atomic per job, as Enqueue), and each gets its own answer.
func (q *Queues) EnqueueBatch(ctx context.Context, queue string, jobs []domain.NewJob) ([]domain.Result[domain.Enqueued], error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return nil, err
	}
	if err := domain.ValidateBatch("jobs", len(jobs), domain.MaxBatchJobs); err != nil {
		return nil, err
	}
	now := q.now()
	out := make([]domain.Result[domain.Enqueued], len(jobs))
	cmds := make([]*redis.Cmd, len(jobs))
	plans := make([]func(context.Context, redis.Scripter) *redis.Cmd, len(jobs))
	for i := range jobs {
		plans[i], out[i].Err = q.planEnqueue(queue, &jobs[i], now)
	}
	err := q.replicas.Write(ctx, q.Rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
		for i, plan := range plans {
			if plan != nil {
				cmds[i] = plan(ctx, pipe)
			}
		}
	}, q.index(ctx, queue, now))
	notReplicated := errors.Is(err, store.ErrNotReplicated)
	if err != nil && !notReplicated {
		return nil, store.OpWriteError("queues.Queues.EnqueueBatch", err)
	}
	q.indexed(queue, now)
	for i, cmd := range cmds {
		if cmd == nil {
			continue
		}
		out[i].Value, out[i].Err = q.enqueued(queue, jobs[i], cmd)
		if out[i].Err == nil && notReplicated {
			out[i].Value, out[i].Err = domain.Enqueued{}, fmt.Errorf("queues.Queues.EnqueueBatch: job %q is enqueued (enqueueing it again with its id is safe), but %w", jobs[i].ID, err)
		}
	}
	return out, nil
}

// index returns what adds a queue to the index of queues (SADD), or nil when this process
// did so within bookkeepingRefresh: the index is not part of any job's atomic step (SADD is
// idempotent and keeps the scripts in the queue's slot), and sending it once a minute rather
// than with every call is enough for discovery and the reaper. replicaWait.write sends it
// after the write succeeded, so a queue whose key holds another type is never indexed.
func (q *Queues) index(ctx context.Context, queue string, now time.Time) func(redis.Pipeliner) {
	if !q.bookkept.Due(queue, now) {
		return nil
	}
	return func(pipe redis.Pipeliner) { pipe.SAdd(ctx, q.keys.QueueIndex(), queue) }
}

// indexed records that a call through index went through.
func (q *Queues) indexed(queue string, now time.Time) {
	if q.bookkept.Due(queue, now) {
		q.bookkept.Done(queue, now)
		q.found.Add(store.KindQueue, queue)
	}
}

// planEnqueue checks a job (giving it an id when it has none) and returns what sends its
// enqueue script through a pipeline (EVALSHA; exec resends a forgotten script) or straight
// on the client (Run).
func (q *Queues) planEnqueue(queue string, job *domain.NewJob, now time.Time) (func(context.Context, redis.Scripter) *redis.Cmd, error) {
	keys, args, err := q.EnqueueStep(queue, job, now)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, c redis.Scripter) *redis.Cmd {
		return enqueueScript.Run(ctx, c, keys, args...)
	}, nil
}

// EnqueueStep checks a job (giving it an id when it has none) and returns enqueueScript's
// keys and arguments for it at now: what Enqueue runs, and what a script that enqueues as a
// part of its own step runs with LuaEnqueueBody (the schedules' fire script). Its keys are all
// on the queue's slot.
func (q *Queues) EnqueueStep(queue string, job *domain.NewJob, now time.Time) (keys []string, args []any, err error) {
	if job.ID == "" {
		job.ID = locks.NewToken()[:20]
	}
	if err := domain.ValidateJobID(job.ID); err != nil {
		return nil, nil, err
	}
	if job.HasPriority {
		if err := domain.ValidatePriority(job.Priority); err != nil {
			return nil, nil, err
		}
	}
	if err := domain.ValidatePayload(job.Payload); err != nil {
		return nil, nil, err
	}
	if job.Type != "" {
		if err := domain.ValidateJobType("type", job.Type); err != nil {
			return nil, nil, err
		}
	}
	if now.UnixMilli() < 0 || now.UnixMilli()+domain.MaxDelay.Milliseconds() > domain.MaxEpochMs {
		return nil, nil, domain.Errorf(domain.EINVALID, "the clock says %s, which scores cannot hold", now.UTC().Format(time.RFC3339))
	}
	runAt, delay := "", ""
	switch {
	case !job.RunAt.IsZero() && job.Delay != 0:
		return nil, nil, domain.Errorf(domain.EINVALID, "give run_at or delay_ms, not both")
	case !job.RunAt.IsZero():
		ms := job.RunAt.UnixMilli()
		if ms < 0 || ms > now.Add(domain.MaxDelay).UnixMilli() {
			return nil, nil, domain.Errorf(domain.EINVALID, "run_at must be between 1970 and %s, a year from now (got %s)",
				now.Add(domain.MaxDelay).UTC().Format(time.RFC3339), job.RunAt.UTC().Format(time.RFC3339))
		}
		runAt = strconv.FormatInt(ms, 10)
	case job.Delay != 0:
		if job.Delay < 0 || job.Delay > domain.MaxDelay || job.Delay%time.Millisecond != 0 {
			return nil, nil, domain.Errorf(domain.EINVALID, "delay_ms must be a whole number of milliseconds from 0 to %d (a year) (got %v)", domain.MaxDelay.Milliseconds(), job.Delay)
		}
		delay = strconv.FormatInt(job.Delay.Milliseconds(), 10)
	}
	field := tputField(now, 'e')
	keys = []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueJobs(queue), q.keys.QueueDead(queue),
		q.keys.QueueSettings(queue), q.keys.QueueThroughput(queue, now), q.keys.QueueCompleted(queue), q.keys.QueueAckTokens(queue),
		q.keys.QueueLeases(queue), q.keys.QueueAttempts(queue), q.keys.QueueErrors(queue), q.keys.QueueRetry(queue), q.keys.QueueTypes(queue)}
	j := *job
	args = []any{j.ID, string(domain.DefaultQueueKind(queue)), locks.BoolArg(j.HasPriority),
		j.Priority, runAt, delay, now.UnixMilli(), string(j.Payload), field, queueThroughputTTL.Milliseconds(),
		q.leaseNow(), domain.CompletedRetention.Milliseconds(), j.Type}
	return keys, args, nil
}

// enqueued reads the enqueue script's answer for job.
func (q *Queues) enqueued(queue string, job domain.NewJob, cmd *redis.Cmd) (domain.Enqueued, error) {
	vals, _ := cmd.Val().([]any)
	if len(vals) < 2 {
		if err := cmd.Err(); err != nil {
			return domain.Enqueued{}, store.OpWriteError("queues.Queues.enqueued", err)
		}
		return domain.Enqueued{}, fmt.Errorf("queues.Queues.enqueued: unexpected reply %v", cmd.Val())
	}
	code, _ := vals[0].(int64)
	kind := domain.QueueKind(fmt.Sprint(vals[1]))
	switch code {
	case 1:
	case -1:
		return domain.Enqueued{}, domain.Errorf(domain.ECONFLICT, "job %q is already waiting in queue %q; it was not moved", job.ID, queue)
	case -2:
		return domain.Enqueued{}, domain.Errorf(domain.ECONFLICT, "job %q is in flight in queue %q (leased, not acked yet); ack or delete it first", job.ID, queue)
	case -3:
		return domain.Enqueued{}, domain.Errorf(domain.ECONFLICT, "job %q is in queue %q's dead set; requeue or delete it", job.ID, queue)
	case -8:
		return domain.Enqueued{}, domain.Errorf(domain.ECONFLICT, "job %q is scheduled for a retry in queue %q (nacked with a delay): it returns at its priority when the delay is over; delete it first to enqueue it anew", job.ID, queue)
	case -4:
		return domain.Enqueued{}, domain.Errorf(domain.EINVALID, "queue %q is a priority queue: give a priority from 0 to 9, not run_at or delay_ms", queue)
	case -5:
		return domain.Enqueued{}, domain.Errorf(domain.EINVALID, "priority is required on priority queue %q: a whole number from 0 (first) to 9 (last)", queue)
	case -6:
		return domain.Enqueued{}, domain.Errorf(domain.EINVALID, "queue %q is a delayed queue: give run_at or delay_ms (or neither: due now), not a priority", queue)
	case -7:
		at, _ := vals[2].(int64)
		return domain.Enqueued{}, domain.Errorf(domain.ECONFLICT, "job %q already ran: it completed in queue %q at %s, so this enqueue is taken for a retry and was not added again (an id is remembered for %v after its job completes; use a new id to run the job again)",
			job.ID, queue, time.UnixMilli(at).UTC().Format(time.RFC3339), domain.CompletedRetention)
	default:
		return domain.Enqueued{}, fmt.Errorf("queues.Queues.enqueued: unexpected reply %v", cmd.Val())
	}
	score, ok := vals[2].(int64)
	if !ok || len(vals) != 3 {
		return domain.Enqueued{}, fmt.Errorf("queues.Queues.enqueued: unexpected reply %v", cmd.Val())
	}
	out := domain.Enqueued{ID: job.ID, Queue: queue, Kind: kind, Score: float64(score), Type: job.Type}
	if kind == domain.PriorityQueue {
		p := job.Priority
		out.Priority = &p
	} else {
		t := time.UnixMilli(score).UTC()
		out.RunAt = &t
	}
	q.remember(queue, kind)
	return out, nil
}

// EnqueueReply reads enqueueScript's reply (vals: {code, kind, …}) for job, as Enqueue does:
// for a script that ran LuaEnqueueBody inside its own step (see EnqueueStep).
func (q *Queues) EnqueueReply(queue string, job domain.NewJob, vals []any) (domain.Enqueued, error) {
	cmd := redis.NewCmd(context.Background())
	cmd.SetVal(vals)
	return q.enqueued(queue, job, cmd)
}
