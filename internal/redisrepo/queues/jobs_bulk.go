package queues

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/payloaddiff"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// What operators do with many jobs (search, bulk actions) and with a dead job before its
// retry (domain.JobBulkOps), on Queues.

var _ domain.JobBulkOps = (*Queues)(nil)

// searchCursor is where a search goes on: after item, in the list of state. The one place a
// search makes a cursor; it is a list cursor (domain.JobCursor), so a search and a list page
// through the same positions.
func searchCursor(key []byte, queue string, state domain.JobState, item domain.JobListItem) string {
	return domain.JobCursor{State: state, Score: item.Score, ID: item.ID}.Encode(key, queue)
}

func (q *Queues) SearchJobs(ctx context.Context, queue string, opt domain.JobSearchOptions) (domain.JobSearchPage, error) {
	if err := domain.ValidateKeyName("queue", queue); err != nil { // a read: another service's queue too
		return domain.JobSearchPage{}, err
	}
	if err := opt.Validate(); err != nil {
		return domain.JobSearchPage{}, err
	}
	c, key, err := q.parseJobCursor(ctx, opt.Cursor, opt.State, queue)
	if err != nil {
		return domain.JobSearchPage{}, err
	}
	if c.Back {
		return domain.JobSearchPage{}, domain.ErrSearchBackwards
	}
	res := domain.JobSearchPage{Queue: queue, State: opt.State, Text: opt.Text, Jobs: []domain.JobMatch{}, PayloadsSearched: !opt.IDsOnly}
	list := domain.JobListOptions{State: opt.State, Cursor: opt.Cursor}
	for {
		list.Limit = min(domain.MaxJobPage, domain.MaxSearchScan-int(res.Scanned))
		page, err := q.Jobs(ctx, queue, list)
		if err != nil {
			return res, err
		}
		res.Counts = page.Counts
		payloads, err := q.searchPayloads(ctx, queue, opt, page.Jobs)
		if err != nil {
			return res, err
		}
		for i, item := range page.Jobs {
			res.Scanned++
			if m := opt.Matches(item.ID, payloads[i]); m != "" {
				match := domain.JobMatch{JobListItem: item, Match: m}
				if m == "payload" {
					match.Excerpt = opt.ExcerptOf(payloads[i])
				}
				res.Jobs = append(res.Jobs, match)
			}
			if len(res.Jobs) == opt.Limit && (i < len(page.Jobs)-1 || page.Next != "") {
				res.Next = searchCursor(key, queue, opt.State, item) // stopped at the last match
				return res, nil
			}
		}
		res.Next = page.Next
		if page.Next == "" || res.Scanned >= domain.MaxSearchScan {
			return res, nil
		}
		list.Cursor = page.Next
	}
}

// searchPayloads reads the payloads of a list's jobs, each bound to the job's queue score as a
// delivery would hand it over (boundPayload); nil entries where there is none or where
// payloads are not searched.
func (q *Queues) searchPayloads(ctx context.Context, queue string, opt domain.JobSearchOptions, items []domain.JobListItem) ([][]byte, error) {
	out := make([][]byte, len(items))
	if opt.IDsOnly || opt.Text == "" || len(items) == 0 {
		return out, nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	pipe := q.Rdb.Pipeline()
	if opt.State == domain.JobCompleted { // a completed job's payload, when kept, as delivered
		if !q.completed.Payloads {
			return out, nil
		}
		done := pipe.HMGet(ctx, q.keys.QueueDonePayloads(queue), ids...)
		if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
			return nil, store.OpError("queues.Queues.searchPayloads", err)
		}
		for i := range items {
			if p, ok := done.Val()[i].(string); ok && p != "" {
				out[i] = boundPayload(p, 0, false)
			}
		}
		return out, nil
	}
	payloads := pipe.HMGet(ctx, q.keys.QueueJobs(queue), ids...)
	kept := pipe.HMGet(ctx, q.keys.QueueScores(queue), ids...) // the queue score of a job in flight or dead
	if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
		return nil, store.OpError("queues.Queues.searchPayloads", err)
	}
	waiting := opt.State == domain.JobWaiting || opt.State == domain.JobScheduled
	for i, it := range items {
		p, ok := payloads.Val()[i].(string)
		if !ok || p == "" {
			continue
		}
		score, known := it.Score, waiting
		if !waiting {
			s, has := kept.Val()[i].(string)
			score, _ = strconv.ParseFloat(s, 64)
			known = has
		}
		out[i] = boundPayload(p, score, known)
	}
	return out, nil
}

func (q *Queues) BulkJobs(ctx context.Context, queue string, req domain.BulkRequest) (domain.BulkJobsResult, error) {
	res := domain.BulkJobsResult{Queue: queue, Action: req.Action, Failures: []domain.BulkFailure{}}
	if err := domain.ValidateName("queue", queue); err != nil {
		return res, err
	}
	if err := req.Validate(); err != nil {
		return res, err
	}
	if req.Match == nil {
		for start := 0; start < len(req.IDs); start += domain.DeadBatch {
			if err := q.bulkBatch(ctx, queue, req.Action, req.IDs[start:min(start+domain.DeadBatch, len(req.IDs))], &res); err != nil {
				return res, err
			}
		}
		return res, nil
	}
	opt := *req.Match
	opt.Limit, opt.IDsOnly = domain.DeadBatch, false
	for {
		page, err := q.SearchJobs(ctx, queue, opt)
		if err != nil {
			return res, err
		}
		res.Scanned += page.Scanned
		res.Next = page.Next
		if len(page.Jobs) > 0 {
			ids := make([]string, len(page.Jobs))
			for i, j := range page.Jobs {
				ids[i] = j.ID
			}
			if err := q.bulkBatch(ctx, queue, req.Action, ids, &res); err != nil {
				return res, err
			}
		}
		if page.Next == "" || res.Scanned >= domain.MaxBulkScan {
			return res, nil
		}
		opt.Cursor = page.Next
	}
}

// bulkBatch runs bulkJobsScript on ids (at most domain.DeadBatch) and adds what it did to res.
func (q *Queues) bulkBatch(ctx context.Context, queue string, action domain.BulkAction, ids []string, res *domain.BulkJobsResult) error {
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueDead(queue), q.keys.QueueJobs(queue),
		q.keys.QueueAttempts(queue), q.keys.QueueScores(queue), q.keys.QueueLeases(queue), q.keys.QueueErrors(queue),
		q.keys.QueueSettings(queue)}
	now := q.now().UnixMilli()
	args := []any{string(action), now, string(domain.DefaultQueueKind(queue)), q.leaseNow(), domain.AttemptErrorsKept, domain.KilledByOperator}
	for _, id := range ids {
		args = append(args, id)
	}
	vals, err := bulkJobsScript.Run(ctx, q.Rdb, keys, args...).Slice()
	if err != nil {
		return store.OpWriteError("queues.Queues.bulkBatch", err)
	}
	if len(vals) != 3 {
		return fmt.Errorf("queues.Queues.bulkBatch: unexpected reply %v", vals)
	}
	failed, _ := vals[2].([]any)
	done, _ := vals[0].(int64)
	kind := domain.QueueKind(toString(vals[1]))
	res.Done += done
	res.Batches++
	for i := 0; i < len(failed); i += 4 {
		res.Failed++
		if len(res.Failures) == domain.MaxBulkFailures {
			continue
		}
		f := domain.BulkFailure{ID: toString(failed[i]), Reason: toString(failed[i+1])}
		switch toString(failed[i+2]) {
		case "waiting":
			f.State = domain.JobWaiting
			if score, _ := strconv.ParseFloat(toString(failed[i+3]), 64); kind == domain.DelayedQueue && int64(score) > now {
				f.State = domain.JobScheduled
			}
		case "processing":
			f.State = domain.JobInFlight
		case "dead":
			f.State = domain.JobDead
		}
		res.Failures = append(res.Failures, f)
	}
	return nil
}

func (q *Queues) Retry(ctx context.Context, queue, id string, r domain.JobRetry) (domain.Retried, error) {
	if err := validateQueueJob(queue, id); err != nil {
		return domain.Retried{}, err
	}
	if err := r.Validate(); err != nil {
		return domain.Retried{}, err
	}
	now := q.now()
	priority, runAt, runAtText := "", "", ""
	if r.HasPriority {
		priority = strconv.Itoa(r.Priority)
	}
	if !r.RunAt.IsZero() {
		ms := r.RunAt.UnixMilli()
		if ms < 0 || ms > now.Add(domain.MaxDelay).UnixMilli() {
			return domain.Retried{}, domain.Errorf(domain.EINVALID, "run_at must be between 1970 and %s, a year from now (got %s)",
				now.Add(domain.MaxDelay).UTC().Format(time.RFC3339), r.RunAt.UTC().Format(time.RFC3339))
		}
		runAt, runAtText = strconv.FormatInt(ms, 10), r.RunAt.UTC().Format(time.RFC3339Nano)
	}
	keys := []string{q.keys.Queue(queue), q.keys.QueueDead(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue),
		q.keys.QueueSettings(queue), q.keys.QueueLeases(queue), q.keys.QueueJobs(queue), q.keys.QueueErrors(queue),
		q.keys.QueueProcessing(queue), q.keys.QueueRetry(queue)}
	// A new payload is compared with the one stored now, and the script requeues only while
	// that is still the one stored (the history says what changed from it); a dead job's
	// payload changes only by an edit, so one more read settles a race.
	var vals []any
	var changes []domain.PayloadChange
	for range 3 {
		stored, had := "", "0"
		if r.HasPayload {
			v, err := q.Rdb.HGet(ctx, q.keys.QueueJobs(queue), id).Result()
			switch {
			case err == nil:
				stored, had = v, "1"
			case !errors.Is(err, redis.Nil):
				return domain.Retried{}, store.OpError("queues.Queues.Retry", err)
			}
			changes = payloaddiff.Compare(boundPayload(stored, 0, false), r.Payload)
		}
		var err error
		vals, err = retryScript.Run(ctx, q.Rdb, keys, now.UnixMilli(), string(domain.DefaultQueueKind(queue)), id, priority,
			runAt, runAtText, locks.BoolArg(r.HasPayload), string(r.Payload), q.leaseNow(), domain.AttemptErrorsKept,
			domain.SummarizePayloadChanges(changes), had, stored).Slice()
		if err != nil {
			return domain.Retried{}, store.OpWriteError("queues.Queues.Retry", err)
		}
		if code, _ := vals[0].(int64); code != -7 {
			break
		}
	}
	code, _ := vals[0].(int64)
	switch code {
	case -7:
		return domain.Retried{}, domain.Errorf(domain.ECONFLICT, "job %q of queue %q: its payload kept changing while it was requeued; try again", id, queue)
	case 1:
	case 0:
		return domain.Retried{}, domain.Errorf(domain.ENOTFOUND, "job %q is not in queue %q's dead set: only a dead job is retried", id, queue)
	case -1:
		return domain.Retried{}, domain.Errorf(domain.ECONFLICT, "job %q is waiting in queue %q already; delete the dead one instead", id, queue)
	case -2:
		state := map[string]string{"waiting": "waiting (or scheduled)", "in_flight": "in flight: a consumer holds it", "retrying": "waiting for its next attempt"}[toString(vals[1])]
		return domain.Retried{}, domain.Errorf(domain.ECONFLICT, "job %q of queue %q is %s, not dead: only a dead job is retried (a waiting job can be changed by deleting and enqueueing it again)", id, queue, state)
	case -4:
		return domain.Retried{}, domain.Errorf(domain.EINVALID, "queue %q is a priority queue: give a priority from 0 to 9, not run_at", queue)
	case -6:
		return domain.Retried{}, domain.Errorf(domain.EINVALID, "queue %q is a delayed queue: give run_at (or nothing: due now), not a priority", queue)
	}
	if code != 1 || len(vals) != 4 {
		return domain.Retried{}, fmt.Errorf("queues.Queues.Retry: unexpected reply %v", vals)
	}
	score, _ := vals[2].(int64)
	out := domain.Retried{Enqueued: domain.Enqueued{ID: id, Queue: queue, Kind: domain.QueueKind(toString(vals[1])), Score: float64(score)}, Edit: toString(vals[3]), PayloadChanges: changes}
	if out.Kind == domain.PriorityQueue {
		if p, _, ok := domain.ScorePriority(out.Score); ok {
			out.Priority = &p
		}
	} else {
		t := time.UnixMilli(score).UTC()
		out.RunAt = &t
	}
	return out, nil
}
