package redisrepo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/zpulse/zpulse/internal/domain"
)

// queueThroughputTTL keeps a minute's counts for the sparkline and a little more.
const queueThroughputTTL = 10 * time.Minute

// reapBatch bounds the jobs one reap script handles (see reapScript).
const reapBatch = 500

// Queues is the Redis implementation of domain.QueueService.
type Queues struct {
	rdb      redis.UniversalClient
	blocking redis.UniversalClient // BZPOPMIN only: a blocked take holds one of these connections
	keys     Keys
	clock    domain.Clock // scores, due times, throughput (the caller's clock, as the article)
	lease    domain.Clock // lease deadlines; nil: Redis TIME
	found    *Discovery
	settings *ttlCache[domain.QueueSettings]
	replicas replicaWait // an enqueue waits for replicas (OpenOptions.WaitReplicas)
	bookkept *seenSet    // queues this process put in the index (QueueIndex) lately

	sweepMu sync.Mutex
	sweep   map[string]string // queue -> HSCAN cursor of its unfinished orphan sweep
}

var _ domain.QueueService = (*Queues)(nil)

// newQueues returns queues kept in rdb under keys, listing those found. Blocking takes
// (BZPOPMIN) run on blocking, a client with connections of its own (newBlockingClient), so a
// take that waits never delays another command. Scores use the local clock, leases the
// scripts' (Redis TIME unless a clock is given).
func newQueues(rdb, blocking redis.UniversalClient, keys Keys, found *Discovery, c clocks) *Queues {
	return &Queues{rdb: rdb, blocking: blocking, keys: keys, clock: c.local(), lease: c.script, found: found,
		settings: newTTLCache[domain.QueueSettings](queueSettingsTTL, c.local()), bookkept: newSeenSet()}
}

// newBlockingClient returns a client of the same Redis as rdb with a pool of its own, for
// blocking commands: Lettuce's shared connection, which the article warns about, has no Go
// equivalent, but a take that waits 30 s on a connection of the main pool would still keep
// that connection from everyone else, and enough of them would starve the dashboard.
// Cancelling a take's context closes its connection (the wait ends at once).
func newBlockingClient(rdb redis.UniversalClient, poolSize int) redis.UniversalClient {
	switch c := rdb.(type) {
	case *redis.Client:
		opt := *c.Options()
		opt.PoolSize, opt.MinIdleConns, opt.ContextTimeoutEnabled = poolSize, 0, true
		// Not shared with rdb's (its handlers are registered once per config); maintenance
		// notifications (Redis Enterprise's) matter little to a take that waits 30 s at most.
		opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
		return redis.NewClient(&opt)
	case *redis.ClusterClient:
		opt := *c.Options()
		opt.PoolSize, opt.MinIdleConns, opt.ContextTimeoutEnabled = poolSize, 0, true
		return redis.NewClusterClient(&opt)
	default:
		return rdb
	}
}

func (q *Queues) now() time.Time { return q.clock.Now() }

// leaseNow is the lease clock's ARGV: "" lets the script read Redis TIME.
func (q *Queues) leaseNow() string {
	if q.lease == nil {
		return ""
	}
	return strconv.FormatInt(q.lease.Now().UnixMilli(), 10)
}

// tputField is the throughput hash's field of t's second: "e12" enqueued, "c12" completed.
func tputField(t time.Time, kind byte) string { return string(kind) + strconv.Itoa(t.UTC().Second()) }

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
	if q.replicas.n == 0 && !q.bookkept.due(queue, now) {
		// Nothing to send beside the script: one call straight on the client (Run: EVALSHA,
		// EVAL if Redis forgot it), cheaper than a pipeline of one.
		cmd = plan(ctx, q.rdb)
		err = cmd.Err()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
	} else {
		err = q.replicas.write(ctx, q.rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
			cmd = plan(ctx, pipe)
		}, q.index(ctx, queue, now))
	}
	notReplicated := errors.Is(err, errNotReplicated)
	if err != nil && !notReplicated {
		return domain.Enqueued{}, opWriteError("redisrepo.Queues.Enqueue", err)
	}
	q.indexed(queue, now)
	out, rerr := q.enqueued(queue, job, cmd)
	if rerr != nil {
		return domain.Enqueued{}, rerr
	}
	if notReplicated {
		return domain.Enqueued{}, fmt.Errorf("redisrepo.Queues.Enqueue: job %q is enqueued (enqueueing it again with its id is safe), but %w", job.ID, err)
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
	err := q.replicas.write(ctx, q.rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
		for i, plan := range plans {
			if plan != nil {
				cmds[i] = plan(ctx, pipe)
			}
		}
	}, q.index(ctx, queue, now))
	notReplicated := errors.Is(err, errNotReplicated)
	if err != nil && !notReplicated {
		return nil, opWriteError("redisrepo.Queues.EnqueueBatch", err)
	}
	q.indexed(queue, now)
	for i, cmd := range cmds {
		if cmd == nil {
			continue
		}
		out[i].Value, out[i].Err = q.enqueued(queue, jobs[i], cmd)
		if out[i].Err == nil && notReplicated {
			out[i].Value, out[i].Err = domain.Enqueued{}, fmt.Errorf("redisrepo.Queues.EnqueueBatch: job %q is enqueued (enqueueing it again with its id is safe), but %w", jobs[i].ID, err)
		}
	}
	return out, nil
}

// index returns what adds a queue to the index of queues (SADD), or nothing when this
// process did so within bookkeepingRefresh: the index is not part of any job's atomic step
// (SADD is idempotent and keeps the scripts in the queue's slot), and sending it once a
// minute rather than with every call is enough for discovery and the reaper.
func (q *Queues) index(ctx context.Context, queue string, now time.Time) func(redis.Pipeliner) {
	if !q.bookkept.due(queue, now) {
		return func(redis.Pipeliner) {}
	}
	return func(pipe redis.Pipeliner) { pipe.SAdd(ctx, q.keys.QueueIndex(), queue) }
}

// indexed records that a call through index went through.
func (q *Queues) indexed(queue string, now time.Time) {
	if q.bookkept.due(queue, now) {
		q.bookkept.done(queue, now)
		q.found.add(queueKeys, queue)
	}
}

// planEnqueue checks a job (giving it an id when it has none) and returns what sends its
// enqueue script through a pipeline (EVALSHA; exec resends a forgotten script) or straight
// on the client (Run).
func (q *Queues) planEnqueue(queue string, job *domain.NewJob, now time.Time) (func(context.Context, redis.Scripter) *redis.Cmd, error) {
	if job.ID == "" {
		job.ID = NewToken()[:20]
	}
	if err := domain.ValidateJobID(job.ID); err != nil {
		return nil, err
	}
	if job.HasPriority {
		if err := domain.ValidatePriority(job.Priority); err != nil {
			return nil, err
		}
	}
	if err := domain.ValidatePayload(job.Payload); err != nil {
		return nil, err
	}
	if now.UnixMilli() < 0 || now.UnixMilli()+domain.MaxDelay.Milliseconds() > domain.MaxEpochMs {
		return nil, domain.Errorf(domain.EINVALID, "the clock says %s, which scores cannot hold", now.UTC().Format(time.RFC3339))
	}
	runAt, delay := "", ""
	switch {
	case !job.RunAt.IsZero() && job.Delay != 0:
		return nil, domain.Errorf(domain.EINVALID, "give run_at or delay_ms, not both")
	case !job.RunAt.IsZero():
		ms := job.RunAt.UnixMilli()
		if ms < 0 || ms > now.Add(domain.MaxDelay).UnixMilli() {
			return nil, domain.Errorf(domain.EINVALID, "run_at must be between 1970 and %s, a year from now (got %s)",
				now.Add(domain.MaxDelay).UTC().Format(time.RFC3339), job.RunAt.UTC().Format(time.RFC3339))
		}
		runAt = strconv.FormatInt(ms, 10)
	case job.Delay != 0:
		if job.Delay < 0 || job.Delay > domain.MaxDelay || job.Delay%time.Millisecond != 0 {
			return nil, domain.Errorf(domain.EINVALID, "delay_ms must be a whole number of milliseconds from 0 to %d (a year) (got %v)", domain.MaxDelay.Milliseconds(), job.Delay)
		}
		delay = strconv.FormatInt(job.Delay.Milliseconds(), 10)
	}
	field := tputField(now, 'e')
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueJobs(queue), q.keys.QueueDead(queue),
		q.keys.QueueSettings(queue), q.keys.QueueThroughput(queue, now), q.keys.QueueCompleted(queue), q.keys.QueueAckTokens(queue),
		q.keys.QueueLeases(queue), q.keys.QueueAttempts(queue), q.keys.QueueErrors(queue)}
	j := *job
	return func(ctx context.Context, c redis.Scripter) *redis.Cmd {
		call := enqueueScript.Run
		if _, piped := c.(redis.Pipeliner); piped {
			call = enqueueScript.EvalSha
		}
		return call(ctx, c, keys, j.ID, string(domain.DefaultQueueKind(queue)), boolArg(j.HasPriority),
			j.Priority, runAt, delay, now.UnixMilli(), string(j.Payload), field, queueThroughputTTL.Milliseconds(),
			q.leaseNow(), domain.CompletedRetention.Milliseconds())
	}, nil
}

// enqueued reads the enqueue script's answer for job.
func (q *Queues) enqueued(queue string, job domain.NewJob, cmd *redis.Cmd) (domain.Enqueued, error) {
	vals, _ := cmd.Val().([]any)
	if len(vals) < 2 {
		if err := cmd.Err(); err != nil {
			return domain.Enqueued{}, opWriteError("redisrepo.Queues.Enqueue", err)
		}
		return domain.Enqueued{}, fmt.Errorf("redisrepo.Queues.Enqueue: unexpected reply %v", cmd.Val())
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
		return domain.Enqueued{}, fmt.Errorf("redisrepo.Queues.Enqueue: unexpected reply %v", cmd.Val())
	}
	score, ok := vals[2].(int64)
	if !ok || len(vals) != 3 {
		return domain.Enqueued{}, fmt.Errorf("redisrepo.Queues.Enqueue: unexpected reply %v", cmd.Val())
	}
	out := domain.Enqueued{ID: job.ID, Queue: queue, Kind: kind, Score: float64(score)}
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
		return q.pollLeased(ctx, queue, set.Kind, opt.Lease)
	case opt.Wait > 0:
		return q.take(ctx, queue, opt.Wait)
	case set.Kind == domain.DelayedQueue:
		id, err := popDueScript.Run(ctx, q.rdb, []string{q.keys.Queue(queue), q.keys.QueuePaused(queue)}, q.now().UnixMilli()).Text()
		if errors.Is(err, redis.Nil) {
			return domain.Delivery{}, false, nil
		} else if err != nil {
			return domain.Delivery{}, false, opWriteError("redisrepo.Queues.Poll", err)
		}
		return q.finishTaken(ctx, queue, id, nil) // POP_DUE returns no score
	default:
		now := q.now()
		field := tputField(now, 'c')
		keys := append(append([]string{q.keys.Queue(queue)}, q.takenKeys(queue, now)...), q.keys.QueuePaused(queue))
		vals, err := pollScript.Run(ctx, q.rdb, keys, q.leaseNow(), domain.CompletedRetention.Milliseconds(), domain.CompletedKept,
			field, queueThroughputTTL.Milliseconds()).Slice()
		if errors.Is(err, redis.Nil) {
			return domain.Delivery{}, false, nil
		} else if err != nil {
			return domain.Delivery{}, false, opWriteError("redisrepo.Queues.Poll", err)
		}
		if len(vals) != 3 {
			return domain.Delivery{}, false, fmt.Errorf("redisrepo.Queues.Poll: unexpected reply %v", vals)
		}
		return delivery(queue, set.Kind, vals[0], vals[1], vals[2]), true, nil
	}
}

// take is the article's blocking take: BZPOPMIN on a connection of the blocking client. No
// script can wrap a blocking command, so the pause is checked before the wait, and a job
// popped by a take that was waiting when the queue paused goes back to its place
// (giveBackScript) and the take answers nothing.
func (q *Queues) take(ctx context.Context, queue string, wait time.Duration) (domain.Delivery, bool, error) {
	if paused, err := q.paused(ctx, queue); err != nil || paused {
		return domain.Delivery{}, false, err
	}
	z, err := q.blocking.BZPopMin(ctx, wait, q.keys.Queue(queue)).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return domain.Delivery{}, false, nil
	case ctx.Err() != nil:
		return domain.Delivery{}, false, ctx.Err()
	case err != nil:
		return domain.Delivery{}, false, opWriteError("redisrepo.Queues.Poll", err)
	}
	id, _ := z.Member.(string)
	if paused, err := q.paused(ctx, queue); err == nil && paused {
		if err := giveBackScript.Run(ctx, q.rdb, []string{q.keys.Queue(queue)}, z.Score, id).Err(); err == nil {
			return domain.Delivery{}, false, nil
		}
		// Not given back: hand the job over rather than lose it.
	}
	return q.finishTaken(ctx, queue, id, z.Score)
}

// finishTaken does, after a plain ZPOPMIN-like take (POP_DUE, BZPOPMIN), what pollScript does
// in its step (takenScript). The job is ours alone already, so a second round trip changes
// nothing for anyone else.
//
// score is the taken job's score, nil when the take did not return it (the article's POP_DUE):
// the payload's binding is checked only when it is known.
func (q *Queues) finishTaken(ctx context.Context, queue, id string, score any) (domain.Delivery, bool, error) {
	now := q.now()
	payload, err := takenScript.Run(ctx, q.rdb, q.takenKeys(queue, now), id, q.leaseNow(), domain.CompletedRetention.Milliseconds(),
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

func (q *Queues) pollLeased(ctx context.Context, queue string, kind domain.QueueKind, lease time.Duration) (domain.Delivery, bool, error) {
	ds, err := q.pollLeasedN(ctx, queue, kind, lease, 1)
	if err != nil || len(ds) == 0 {
		return domain.Delivery{}, false, err
	}
	return ds[0], true, nil
}

// PollBatch leases up to n jobs (1..domain.MaxBatchPoll) in one round trip, each with a
// lease token of its own: n lease scripts, each atomic as Poll's. Fewer come back when the
// queue has fewer due.
func (q *Queues) PollBatch(ctx context.Context, queue string, n int, lease time.Duration) ([]domain.Delivery, error) {
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
	return q.pollLeasedN(ctx, queue, set.Kind, lease, n)
}

// pollLeasedN runs n lease scripts in one pipeline and returns the deliveries made.
func (q *Queues) pollLeasedN(ctx context.Context, queue string, kind domain.QueueKind, lease time.Duration, n int) ([]domain.Delivery, error) {
	due := ""
	if kind == domain.DelayedQueue {
		due = strconv.FormatInt(q.now().UnixMilli(), 10)
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueJobs(queue), q.keys.QueueAttempts(queue),
		q.keys.QueueScores(queue), q.keys.QueueLeases(queue), q.keys.QueuePaused(queue)}
	cmds := make([]*redis.Cmd, n)
	tokens := make([]string, n)
	now := q.now()
	if n == 1 && !q.bookkept.due(queue, now) {
		// One script and nothing beside it: straight on the client (Run: EVALSHA, EVAL if
		// Redis forgot it), cheaper than a pipeline of one.
		tokens[0] = NewToken()
		cmds[0] = leaseScript.Run(ctx, q.rdb, keys, due, q.leaseNow(), lease.Milliseconds(), tokens[0])
		if err := cmds[0].Err(); err != nil && !errors.Is(err, redis.Nil) {
			return nil, opWriteError("redisrepo.Queues.Poll", err)
		}
	} else {
		pipe := q.rdb.Pipeline()
		for i := range cmds {
			tokens[i] = NewToken()
			cmds[i] = leaseScript.EvalSha(ctx, pipe, keys, due, q.leaseNow(), lease.Milliseconds(), tokens[i])
		}
		q.index(ctx, queue, now)(pipe) // the reaper must know this queue
		if err := exec(ctx, q.rdb, pipe); err != nil {
			// A lost answer leaves the jobs leased to nobody: the reaper gives them back after the lease.
			return nil, opWriteError("redisrepo.Queues.Poll", err)
		}
	}
	var out []domain.Delivery
	for i, cmd := range cmds {
		if errors.Is(cmd.Err(), redis.Nil) {
			break // the queue ran out: the later scripts found nothing either
		}
		vals, _ := cmd.Val().([]any)
		if len(vals) != 5 {
			return out, fmt.Errorf("redisrepo.Queues.Poll: unexpected reply %v", cmd.Val())
		}
		d := delivery(queue, kind, vals[0], vals[1], vals[4])
		deadline, _ := vals[2].(int64)
		attempt, _ := vals[3].(int64)
		t := time.UnixMilli(deadline).UTC()
		d.LeaseDeadline, d.Attempt, d.Token = &t, int(attempt), tokens[i]
		out = append(out, d)
	}
	q.indexed(queue, now)
	return out, nil
}

// delivery builds a Delivery from a script's id, score (string or float; nil when unknown)
// and stored payload (nil when none): the payload is handed over only when it was bound to
// this score (see boundPayload).
func delivery(queue string, kind domain.QueueKind, id, score, payload any) domain.Delivery {
	d := domain.Delivery{Queue: queue}
	d.ID, _ = id.(string)
	known := score != nil
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
		d.Payload = boundPayload(s, d.Score, known)
	}
	return d
}

func (q *Queues) Reap(ctx context.Context, fence int64) (returned, died int64, err error) {
	names, err := q.found.namesWarm(ctx, queueKeys)
	if err != nil {
		return 0, 0, err
	}
	for len(names) > 0 {
		pipe := q.rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(names))
		now := q.now()
		for i, name := range names {
			keys := []string{q.keys.Queue(name), q.keys.QueueProcessing(name), q.keys.QueueAttempts(name), q.keys.QueueScores(name),
				q.keys.QueueDead(name), q.keys.QueueSettings(name), q.keys.QueueErrors(name), q.keys.QueueReaperFence(name),
				q.keys.QueueThroughput(name, now)}
			cmds[i] = reapScript.EvalSha(ctx, pipe, keys, q.leaseNow(), domain.DefaultMaxAttempts, reapBatch,
				domain.AttemptErrorsKept, domain.LeaseEndedError, fence, tputField(now, 'f'), queueThroughputTTL.Milliseconds())
		}
		if err := exec(ctx, q.rdb, pipe); err != nil {
			return returned, died, opWriteError("redisrepo.Queues.Reap", err)
		}
		var again []string
		for i, cmd := range cmds {
			vals, err := cmd.Int64Slice()
			if err == nil && len(vals) == 2 && vals[0] == -1 {
				return returned, died, domain.Errorf(domain.ECONFLICT, "queue %q was reaped by a newer reaper (fencing token %d, this one's is %d): this reaper's term is over", names[i], vals[1], fence)
			}
			if err != nil || len(vals) != 3 {
				return returned, died, fmt.Errorf("redisrepo.Queues.Reap: unexpected reply %v", cmd.Val())
			}
			returned, died = returned+vals[0], died+vals[1]
			if vals[2] == 1 {
				again = append(again, names[i])
			}
		}
		names = again
	}
	all, _ := q.found.namesWarm(ctx, queueKeys)
	if _, err := q.sweepOrphans(ctx, all); err != nil {
		return returned, died, err
	}
	return returned, died, nil
}

// RunReaper reaps every interval until ctx ends, with fence, the fencing token of the
// domain.Singleton term it runs in (one instance reaps at a time). after, when not nil, is
// told what each round did (the watcher's nudge). Redis errors wait for the next round; a
// newer reaper's fence ends the loop with an error wrapping domain.ErrLockLost (the term is
// over: Singletons campaigns again) and the ECONFLICT.
func (q *Queues) RunReaper(ctx context.Context, every time.Duration, fence int64, after func(returned, died int64)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		r, d, err := q.Reap(ctx, fence)
		switch {
		case domain.ErrorCode(err) == domain.ECONFLICT:
			return fmt.Errorf("redisrepo.Queues.RunReaper: %w: %w", domain.ErrLockLost, err)
		case err == nil && (r > 0 || d > 0) && after != nil:
			after(r, d)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (q *Queues) Requeue(ctx context.Context, queue, id string) error {
	if err := validateQueueJob(queue, id); err != nil {
		return err
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueDead(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue),
		q.keys.QueueSettings(queue), q.keys.QueueLeases(queue), q.keys.QueueJobs(queue)}
	vals, err := requeueScript.Run(ctx, q.rdb, keys, q.now().UnixMilli(), string(domain.DefaultQueueKind(queue)), id).Int64Slice()
	switch {
	case err != nil:
		return opWriteError("redisrepo.Queues.Requeue", err)
	case len(vals) == 0:
		return fmt.Errorf("redisrepo.Queues.Requeue: empty reply")
	case vals[0] == 0:
		return domain.Errorf(domain.ENOTFOUND, "job %q is not in queue %q's dead set", id, queue)
	case vals[0] < 0:
		return domain.Errorf(domain.ECONFLICT, "job %q is waiting in queue %q already; delete the dead one instead", id, queue)
	}
	return nil
}

func (q *Queues) Delete(ctx context.Context, queue, id string) (domain.Where, error) {
	if err := validateQueueJob(queue, id); err != nil {
		return "", err
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueDead(queue), q.keys.QueueJobs(queue),
		q.keys.QueueAttempts(queue), q.keys.QueueScores(queue), q.keys.QueueLeases(queue), q.keys.QueueErrors(queue)}
	where, err := deleteJobScript.Run(ctx, q.rdb, keys, id).Text()
	switch {
	case errors.Is(err, redis.Nil):
		return "", domain.Errorf(domain.ENOTFOUND, "job %q is not in queue %q: not waiting, not in flight, not dead", id, queue)
	case err != nil:
		return "", opWriteError("redisrepo.Queues.Delete", err)
	}
	return domain.Where(where), nil
}

func validateQueueJob(queue, id string) error {
	if err := domain.ValidateName("queue", queue); err != nil {
		return err
	}
	return domain.ValidateJobID(id)
}
