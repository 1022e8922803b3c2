package queues

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// What operators do with jobs (domain.JobOps), on Queues.

var _ domain.JobOps = (*Queues)(nil)

// PlanJob adds the read of one job to pipe (a read-only script, so the watcher's pipeline
// carries it too) and returns its decoder; ok is false when the job is nowhere (a completed
// job is somewhere while completed keeps it).
func PlanJob(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, completed domain.CompletedPolicy, queue, id string, now time.Time) func() (domain.JobDetail, bool) {
	cmd := jobScript.Run(ctx, pipe, []string{keys.Queue(queue), keys.QueueProcessing(queue), keys.QueueDead(queue), keys.QueueJobs(queue),
		keys.QueueAttempts(queue), keys.QueueScores(queue), keys.QueueLeases(queue), keys.QueueErrors(queue),
		keys.QueueSettings(queue), keys.QueuePaused(queue), keys.QueueRetry(queue), keys.QueueDone(queue), keys.QueueDoneInfo(queue),
		keys.QueueDonePayloads(queue)}, id, completedSince(completed, now), locks.BoolArg(completed.Payloads))
	holder := pipe.HGet(ctx, keys.QueueHolders(queue), id)
	types := pipe.HMGet(ctx, keys.QueueTypes(queue), id)
	doneTypes := pipe.HMGet(ctx, keys.QueueDoneTypes(queue), id)
	return func() (domain.JobDetail, bool) {
		vals, _ := cmd.Val().([]any)
		if len(vals) != 11 || vals[0] == "" {
			return domain.JobDetail{}, false
		}
		str := func(i int) (string, bool) { s, ok := vals[i].(string); return s, ok }
		kindS, _ := str(7)
		maxS, _ := str(8)
		set := decodeQueueSettings(queue, map[string]string{"kind": kindS, "max_attempts": maxS})
		j := domain.JobDetail{Queue: queue, ID: id, Kind: set.Kind, MaxAttempts: set.MaxAttempts, Errors: []domain.AttemptError{}}
		pausedN, _ := vals[9].(int64)
		j.Paused = pausedN == 1
		setScore, _ := str(1)
		at, _ := strconv.ParseFloat(setScore, 64)
		kept, hasKept := str(2)
		switch vals[0] {
		case "waiting":
			j.Score = at
			j.State = domain.JobWaiting
			if set.Kind == domain.DelayedQueue && int64(at) > now.UnixMilli() {
				j.State = domain.JobScheduled
			}
		case "retrying":
			j.State = domain.JobScheduled
			t := time.UnixMilli(int64(at)).UTC()
			j.RetryAt = &t
		case "processing":
			j.State = domain.JobInFlight
			d := time.UnixMilli(int64(at)).UTC()
			j.LeaseDeadline = &d
		case "completed":
			info, _ := str(10)
			j = completedJob(j, at, info)
			j.Type = typeOf(doneTypes.Val(), 0)
			if p, ok := str(3); ok && p != "" {
				j.Payload = boundPayload(p, 0, false) // kept as it was delivered
			}
			return j, true
		default:
			j.State = domain.JobDead
			d := time.UnixMilli(int64(at)).UTC()
			j.DiedAt = &d
		}
		j.Type = typeOf(types.Val(), 0)
		known := true // the queue score: a job in flight or dead has it only when zpulse leased it
		if j.State == domain.JobInFlight || j.State == domain.JobDead || j.RetryAt != nil {
			j.Score, _ = strconv.ParseFloat(kept, 64)
			known = hasKept
		}
		if known {
			if set.Kind == domain.PriorityQueue {
				if p, ms, ok := domain.ScorePriority(j.Score); ok {
					t := time.UnixMilli(ms).UTC()
					j.Priority, j.EnqueuedAt = &p, &t
				}
			} else if j.Score >= 0 && j.Score <= domain.MaxEpochMs {
				t := time.UnixMilli(int64(j.Score)).UTC()
				j.RunAt = &t
			}
		}
		if p, ok := str(3); ok && p != "" {
			j.Payload = boundPayload(p, j.Score, known) // nil: it belongs to an earlier enqueue of this id
		}
		if n, ok := str(4); ok {
			j.Attempts, _ = strconv.Atoi(n)
		}
		if tok, ok := str(5); ok && j.State == domain.JobInFlight {
			j.LeaseHolder = leaseFingerprint(tok)
			j.LeasedAt = leaseStart(holder.Val())
		}
		if e, ok := str(6); ok {
			j.Errors = append(j.Errors, decodeAttemptErrors(e)...)
		}
		return j, true
	}
}

// typeOf is the i-th value of an HMGET of a types hash, "" when absent.
func typeOf(vals []any, i int) string {
	if i >= len(vals) {
		return ""
	}
	s, _ := vals[i].(string)
	return s
}

// leaseFingerprint names a lease without giving its token away (the token acks the job).
func leaseFingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "lease-" + hex.EncodeToString(sum[:])[:10]
}

func (q *Queues) Job(ctx context.Context, queue, id string) (domain.JobDetail, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil { // a read: another service's queue too
		return domain.JobDetail{}, err
	}
	if err := domain.ValidateJobID(id); err != nil {
		return domain.JobDetail{}, err
	}
	pipe := q.Rdb.Pipeline()
	read := PlanJob(ctx, pipe, q.keys, q.completed, queue, id, q.now())
	if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
		return domain.JobDetail{}, store.OpError("queues.Queues.Job", err)
	}
	j, ok := read()
	if !ok {
		return domain.JobDetail{}, domain.Errorf(domain.ENOTFOUND, "job %q is not in queue %q: not waiting, scheduled, in flight, dead or completed lately", id, queue)
	}
	return j, nil
}

func (q *Queues) Jobs(ctx context.Context, queue string, opt domain.JobListOptions) (domain.JobPage, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return domain.JobPage{}, err
	}
	if err := opt.Validate(); err != nil {
		return domain.JobPage{}, err
	}
	set, err := q.cachedSettings(ctx, queue)
	if err != nil {
		return domain.JobPage{}, err
	}
	now := q.now().UnixMilli()
	since := completedSince(q.completed, q.now())
	which, lo, hi, due := "1", "-inf", "+inf", ""
	if set.Kind == domain.DelayedQueue {
		due = strconv.FormatInt(now, 10)
	}
	switch opt.State {
	case domain.JobWaiting:
		if due != "" {
			hi = due
		}
	case domain.JobScheduled:
		if due != "" {
			lo = "(" + due
		} else {
			which = "4" // a priority queue's retries
		}
	case domain.JobInFlight:
		which = "2"
	case domain.JobDead:
		which = "3"
	case domain.JobCompleted:
		which, lo = "5", "("+strconv.FormatInt(since, 10)
	}
	// The list's order is up or down (dead jobs: latest death first); a cursor going back
	// reads the other way from where it points.
	desc := domain.JobOrderDescending(opt.State)
	cur, key, err := q.parseJobCursor(ctx, opt.Cursor, opt.State, queue)
	if err != nil {
		return domain.JobPage{}, err
	}
	hasCursor := opt.Cursor != ""
	up := desc == cur.Back
	dir := "down"
	if up {
		dir = "up"
	}
	typesKey := q.keys.QueueTypes(queue)
	if opt.State == domain.JobCompleted {
		typesKey = q.keys.QueueDoneTypes(queue)
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueDead(queue), q.keys.QueueRetry(queue), q.keys.QueueDone(queue),
		q.keys.QueueErrors(queue), typesKey}
	vals, err := jobPageScript.Run(ctx, q.Rdb, keys, which, lo, hi, dir, locks.BoolArg(hasCursor),
		strconv.FormatFloat(cur.Score, 'f', -1, 64), cur.ID, opt.Limit, due, since).Slice()
	if err != nil {
		return domain.JobPage{}, store.OpError("queues.Queues.Jobs", err)
	}
	if len(vals) != 9 {
		return domain.JobPage{}, fmt.Errorf("queues.Queues.Jobs: unexpected reply %v", vals)
	}
	n := func(i int) int64 { v, _ := vals[i].(int64); return v }
	page := domain.JobPage{Queue: queue, State: opt.State, Jobs: []domain.JobListItem{},
		Counts: domain.JobCounts{Waiting: n(1), Scheduled: n(2), InFlight: n(3), Dead: n(4), Completed: n(6)}}
	flat, _ := vals[5].([]any)
	errs, _ := vals[7].([]any) // a dead job's kept errors, beside it
	types, _ := vals[8].([]any)
	for i := 0; i+1 < len(flat); i += 2 {
		id, _ := flat[i].(string)
		score, _ := strconv.ParseFloat(toString(flat[i+1]), 64)
		item := domain.JobListItem{ID: id, Type: typeOf(types, i/2), Score: score, At: time.UnixMilli(int64(score)).UTC()}
		if (opt.State == domain.JobWaiting) && set.Kind == domain.PriorityQueue {
			if p, ms, ok := domain.ScorePriority(score); ok {
				item.Priority, item.At = &p, time.UnixMilli(ms).UTC()
			}
		}
		if i/2 < len(errs) {
			if e, ok := errs[i/2].(string); ok {
				item.LastError = domain.ShortError(domain.LastError(decodeAttemptErrors(e)))
			}
		}
		page.Jobs = append(page.Jobs, item)
	}
	if desc {
		slices.Reverse(page.Jobs) // the script answers in increasing order, whichever way it read
	}
	more := n(0) == 1
	if len(page.Jobs) > 0 {
		first, last := page.Jobs[0], page.Jobs[len(page.Jobs)-1]
		// Forward: more past the page means a next page; a cursor means a page before.
		// Backward: more means a page before; the cursor's own page is next.
		if (!cur.Back && more) || cur.Back {
			page.Next = domain.JobCursor{State: opt.State, Score: last.Score, ID: last.ID}.Encode(key, queue)
		}
		if (cur.Back && more) || (!cur.Back && hasCursor) {
			page.Prev = domain.JobCursor{State: opt.State, Back: true, Score: first.Score, ID: first.ID}.Encode(key, queue)
		}
	} else if cur.Back || hasCursor {
		// An empty page past an end: offer the way back to where the cursor pointed.
		c := cur
		c.Back = !cur.Back
		if cur.Back {
			page.Next = c.Encode(key, queue)
		} else {
			page.Prev = c.Encode(key, queue)
		}
	}
	return page, nil
}

func (q *Queues) RequeueDead(ctx context.Context, queue string) (domain.BulkResult, error) {
	res := domain.BulkResult{Queue: queue}
	if err := domain.ValidateName("queue", queue); err != nil {
		return res, err
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueDead(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue),
		q.keys.QueueSettings(queue), q.keys.QueueLeases(queue), q.keys.QueueJobs(queue)}
	// The dead jobs there are now bound the work: jobs that die meanwhile (say a worker that
	// fails every requeued job at once) wait for the next requeue instead of keeping this one
	// going forever.
	total, err := q.Rdb.ZCard(ctx, q.keys.QueueDead(queue)).Result()
	if err != nil {
		return res, store.OpError("queues.Queues.RequeueDead", err)
	}
	for res.Moved+res.Skipped < total {
		vals, err := requeueDeadScript.Run(ctx, q.Rdb, keys, q.now().UnixMilli(), string(domain.DefaultQueueKind(queue)),
			domain.DeadBatch, res.Skipped).Int64Slice()
		if err != nil {
			return res, store.OpWriteError("queues.Queues.RequeueDead", err)
		}
		if len(vals) != 3 {
			return res, fmt.Errorf("queues.Queues.RequeueDead: unexpected reply %v", vals)
		}
		res.Moved, res.Skipped, res.Batches = res.Moved+vals[0], res.Skipped+vals[1], res.Batches+1
		if vals[2] < domain.DeadBatch {
			break
		}
	}
	return res, nil
}

func (q *Queues) DeleteDead(ctx context.Context, queue string) (domain.BulkResult, error) {
	res := domain.BulkResult{Queue: queue}
	if err := domain.ValidateName("queue", queue); err != nil {
		return res, err
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueDead(queue), q.keys.QueueJobs(queue), q.keys.QueueAttempts(queue),
		q.keys.QueueScores(queue), q.keys.QueueLeases(queue), q.keys.QueueErrors(queue)}
	total, err := q.Rdb.ZCard(ctx, q.keys.QueueDead(queue)).Result()
	if err != nil {
		return res, store.OpError("queues.Queues.DeleteDead", err)
	}
	for res.Moved < total {
		n, err := deleteDeadScript.Run(ctx, q.Rdb, keys, domain.DeadBatch).Int64()
		if err != nil {
			return res, store.OpWriteError("queues.Queues.DeleteDead", err)
		}
		res.Moved, res.Batches = res.Moved+n, res.Batches+1
		if n < domain.DeadBatch {
			break
		}
	}
	return res, nil
}

func (q *Queues) EachDead(ctx context.Context, queue string, fn func(domain.JobDetail) error) error {
	opt := domain.JobListOptions{State: domain.JobDead, Limit: domain.DeadBatch}
	for {
		page, err := q.Jobs(ctx, queue, opt)
		if err != nil {
			return err
		}
		if len(page.Jobs) > 0 {
			ids := make([]string, len(page.Jobs))
			for i, j := range page.Jobs {
				ids[i] = j.ID
			}
			pipe := q.Rdb.Pipeline()
			payloads := pipe.HMGet(ctx, q.keys.QueueJobs(queue), ids...)
			attempts := pipe.HMGet(ctx, q.keys.QueueAttempts(queue), ids...)
			errs := pipe.HMGet(ctx, q.keys.QueueErrors(queue), ids...)
			if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
				return store.OpError("queues.Queues.EachDead", err)
			}
			for i, item := range page.Jobs {
				died := item.At
				j := domain.JobDetail{Queue: queue, ID: item.ID, State: domain.JobDead, DiedAt: &died, Errors: []domain.AttemptError{}}
				if s, ok := payloads.Val()[i].(string); ok && s != "" {
					j.Payload = boundPayload(s, 0, false) // the binding is not read here: the payload as stored
				}
				if s, ok := attempts.Val()[i].(string); ok {
					j.Attempts, _ = strconv.Atoi(s)
				}
				if s, ok := errs.Val()[i].(string); ok {
					j.Errors = append(j.Errors, decodeAttemptErrors(s)...)
				}
				if err := fn(j); err != nil {
					return err
				}
			}
		}
		if page.Next == "" {
			return nil
		}
		opt.Cursor = page.Next
	}
}

func (q *Queues) SetPaused(ctx context.Context, queue string, paused bool) error {
	if err := domain.ValidateName("queue", queue); err != nil {
		return err
	}
	var err error
	if paused {
		err = store.ReplicaWait{}.Write(ctx, q.Rdb, q.keys.Queue(queue), func(pipe redis.Pipeliner) {
			pauseScript.Run(ctx, pipe, []string{q.keys.Queue(queue), q.keys.QueuePaused(queue)})
		}, func(pipe redis.Pipeliner) { pipe.SAdd(ctx, q.keys.QueueIndex(), queue) }) // a paused queue shows in the list
		if err == nil {
			q.found.Add(store.KindQueue, queue)
		}
	} else {
		err = q.Rdb.Del(ctx, q.keys.QueuePaused(queue)).Err()
	}
	if err != nil {
		return store.OpWriteError("queues.Queues.SetPaused", err)
	}
	if !paused {
		q.resumeMu.Lock()
		if q.resumed != nil {
			close(q.resumed)
			q.resumed = nil
		}
		q.resumeMu.Unlock()
	}
	return nil
}

// cursorKeyTTL is how long an instance signs cursors with the secret it last read before
// reading it again: after Redis lost it, every instance agrees on the new one within it.
const cursorKeyTTL = 5 * time.Second

// jobCursorKey returns the secret that signs job list cursors, shared by every instance
// through Redis: on a miss (none read yet, read more than cursorKeyTTL ago, or reread: a
// cursor it did not verify) it offers the secret it had, or a random one, with SET NX and
// reads back the one Redis keeps. So a secret Redis lost is made again by the first instance
// that needs it (its own, when it had one: cursors it gave stay valid), and the others take
// it up at their next miss, without a restart.
func (q *Queues) jobCursorKey(ctx context.Context, reread bool) ([]byte, error) {
	q.cursorMu.Lock()
	defer q.cursorMu.Unlock()
	now := q.Clock.Now()
	if q.cursorKey != nil && !reread && now.Sub(q.cursorRead) < cursorKeyTTL && now.Sub(q.cursorRead) >= 0 {
		return q.cursorKey, nil
	}
	offer := string(q.cursorKey)
	if offer == "" {
		offer = locks.NewToken() + locks.NewToken()
	}
	pipe := q.Rdb.Pipeline()
	pipe.SetNX(ctx, q.keys.JobCursorKey(), offer, 0)
	get := pipe.Get(ctx, q.keys.JobCursorKey())
	if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
		return nil, store.OpError("queues.Queues.jobCursorKey", err)
	}
	q.cursorKey, q.cursorRead = []byte(get.Val()), now
	return q.cursorKey, nil
}

// parseJobCursor checks a cursor against the shared secret, reading the secret again when the
// one this instance holds does not verify it (another instance may have made a new one), and
// returns the secret the next cursors are signed with.
func (q *Queues) parseJobCursor(ctx context.Context, cursor string, state domain.JobState, queue string) (domain.JobCursor, []byte, error) {
	key, err := q.jobCursorKey(ctx, false)
	if err != nil || cursor == "" {
		return domain.JobCursor{}, key, err
	}
	cur, err := domain.ParseJobCursor(cursor, state, key, queue)
	if err == nil {
		return cur, key, nil
	}
	again, rerr := q.jobCursorKey(ctx, true)
	if rerr != nil {
		return domain.JobCursor{}, nil, rerr
	}
	if bytes.Equal(again, key) {
		return domain.JobCursor{}, nil, err
	}
	cur, err = domain.ParseJobCursor(cursor, state, again, queue)
	return cur, again, err
}

// resumedSignal is closed the next time this process resumes a queue: a blocking take on a
// paused queue waits on it (a resume by another instance is seen when the wait ends).
func (q *Queues) resumedSignal() <-chan struct{} {
	q.resumeMu.Lock()
	defer q.resumeMu.Unlock()
	if q.resumed == nil {
		q.resumed = make(chan struct{})
	}
	return q.resumed
}

// Paused says whether a queue is paused (for pages, and for the blocking take, which no
// script wraps).
func (q *Queues) Paused(ctx context.Context, queue string) (bool, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return false, err
	}
	n, err := q.Rdb.Exists(ctx, q.keys.QueuePaused(queue)).Result()
	if err != nil {
		return false, store.OpError("queues.Queues.Paused", err)
	}
	return n == 1, nil
}
