package queues

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The lease operations of domain.QueueService: ack, extend (heartbeat) and nack, each one
// Script that checks the lease's token and acts in the same atomic step (lease_scripts.go).

func (q *Queues) Ack(ctx context.Context, queue, id, token string) error {
	if err := validateLeaseOp(queue, id, token); err != nil {
		return err
	}
	// One script call straight on the client (Run: EVALSHA, EVAL if Redis forgot it), cheaper
	// than a pipeline of one.
	return q.planAck(ctx, q.Rdb, queue, id, token, q.now())()
}

// AckBatch acks up to domain.MaxBatchAcks leased jobs in one round trip: each ack is its own
// Script (atomic per job, checking its token as Ack does), with its own answer.
func (q *Queues) AckBatch(ctx context.Context, queue string, acks []domain.AckItem) ([]error, error) {
	if err := domain.ValidateName("queue", queue); err != nil {
		return nil, err
	}
	if err := domain.ValidateBatch("acks", len(acks), domain.MaxBatchAcks); err != nil {
		return nil, err
	}
	now := q.now()
	out := make([]error, len(acks))
	reads := make([]func() error, len(acks))
	pipe := q.Rdb.Pipeline()
	for i, a := range acks {
		if out[i] = validateLeaseOp(queue, a.ID, a.Token); out[i] == nil {
			reads[i] = q.planAck(ctx, pipe, queue, a.ID, a.Token, now)
		}
	}
	if pipe.Len() > 0 {
		if err := store.Exec(ctx, q.Rdb, pipe); err != nil {
			return nil, store.OpWriteError("queues.Queues.AckBatch", err)
		}
	}
	for i, read := range reads {
		if read != nil {
			out[i] = read()
		}
	}
	return out, nil
}

// planAck sends an ack's script through c (a pipeline, or the client itself, which runs it at
// once) and returns the reader of its answer.
func (q *Queues) planAck(ctx context.Context, c redis.Scripter, queue, id, token string, now time.Time) func() error {
	keys := []string{q.keys.QueueProcessing(queue), q.keys.QueueJobs(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue),
		q.keys.QueueLeases(queue), q.keys.QueueErrors(queue), q.keys.QueueCompleted(queue), q.keys.QueueAckTokens(queue),
		q.keys.QueueThroughput(queue, now), q.keys.QueueHolders(queue), q.keys.QueueDurations(queue, now), q.keys.QueueDurationTotals(queue),
		q.keys.QueueConsumerCounts(queue, now), q.keys.QueueDone(queue), q.keys.QueueDoneInfo(queue), q.keys.QueueDonePayloads(queue),
		q.keys.QueueTypes(queue), q.keys.QueueDoneTypes(queue)}
	args := []any{id, token, q.leaseNow(), domain.CompletedRetention.Milliseconds(),
		domain.CompletedKept, tputField(now, 'c'), queueThroughputTTL.Milliseconds(), durationPart(now),
		q.completed.Keep, q.completed.MaxAge.Milliseconds(), locks.BoolArg(q.completed.Payloads)}
	cmd := ackScript.Run(ctx, c, keys, args...)
	return func() error {
		vals, err := cmd.Int64Slice()
		switch {
		case err != nil:
			return store.OpWriteError("queues.Queues.planAck", err)
		case len(vals) == 0:
			return fmt.Errorf("queues.Queues.planAck: unexpected reply %v", vals)
		case vals[0] == 1, vals[0] == -5: // -5: this token's ack went through before (a retry)
			return nil
		}
		return leaseRefused("ack", queue, id, vals)
	}
}

func (q *Queues) Extend(ctx context.Context, queue, id, token string, lease time.Duration) (time.Time, error) {
	if err := validateLeaseOp(queue, id, token); err != nil {
		return time.Time{}, err
	}
	if err := domain.ValidateLease(lease); err != nil {
		return time.Time{}, err
	}
	keys := []string{q.keys.QueueProcessing(queue), q.keys.QueueLeases(queue), q.keys.QueueCompleted(queue), q.keys.QueueAckTokens(queue)}
	vals, err := extendScript.Run(ctx, q.Rdb, keys, id, token, q.leaseNow(), lease.Milliseconds(),
		domain.CompletedRetention.Milliseconds()).Int64Slice()
	switch {
	case err != nil:
		return time.Time{}, store.OpWriteError("queues.Queues.Extend", err)
	case len(vals) == 2 && vals[0] == 1:
		return time.UnixMilli(vals[1]).UTC(), nil
	case len(vals) == 0:
		return time.Time{}, fmt.Errorf("queues.Queues.Extend: unexpected reply %v", vals)
	}
	return time.Time{}, leaseRefused("extend", queue, id, vals)
}

func (q *Queues) Nack(ctx context.Context, queue, id, token string, delay time.Duration, errMsg string) (domain.Where, error) {
	if err := validateLeaseOp(queue, id, token); err != nil {
		return "", err
	}
	if delay < 0 || delay > domain.MaxDelay || delay%time.Millisecond != 0 {
		return "", domain.Errorf(domain.EINVALID, "delay_ms must be a whole number of milliseconds from 0 to %d (a year) (got %v)", domain.MaxDelay.Milliseconds(), delay)
	}
	if err := domain.ValidateAttemptError(errMsg); err != nil {
		return "", err
	}
	now := q.now()
	keys := []string{q.keys.Queue(queue), q.keys.QueueProcessing(queue), q.keys.QueueAttempts(queue), q.keys.QueueScores(queue),
		q.keys.QueueLeases(queue), q.keys.QueueErrors(queue), q.keys.QueueCompleted(queue), q.keys.QueueAckTokens(queue),
		q.keys.QueueDead(queue), q.keys.QueueSettings(queue), q.keys.QueueThroughput(queue, now), q.keys.QueueJobs(queue),
		q.keys.QueueRetry(queue), q.keys.QueueHolders(queue), q.keys.QueueConsumerCounts(queue, now)}
	vals, err := nackScript.Run(ctx, q.Rdb, keys, id, token, q.leaseNow(), domain.CompletedRetention.Milliseconds(),
		delay.Milliseconds(), now.UnixMilli(), errMsg, domain.DefaultMaxAttempts, domain.AttemptErrorsKept,
		string(domain.DefaultQueueKind(queue)), tputField(now, 'f'), queueThroughputTTL.Milliseconds()).Int64Slice()
	switch {
	case err != nil:
		return "", store.OpWriteError("queues.Queues.Nack", err)
	case len(vals) == 0:
		return "", fmt.Errorf("queues.Queues.Nack: unexpected reply %v", vals)
	case vals[0] == 1:
		return domain.Waiting, nil
	case vals[0] == 3:
		return domain.Retrying, nil
	case vals[0] == 2:
		return domain.DeadLetter, nil
	}
	return "", leaseRefused("nack", queue, id, vals)
}

// leaseRefused turns a leaseCheck refusal (see luaLeaseCheck) into the error that says why
// nothing changed.
func leaseRefused(op, queue, id string, vals []int64) error {
	at := func() string {
		if len(vals) < 2 {
			return "?"
		}
		return time.UnixMilli(vals[1]).UTC().Format(time.RFC3339Nano)
	}
	switch vals[0] {
	case 0:
		return domain.Errorf(domain.ENOTFOUND, "job %q is not in flight in queue %q: it was never leased, or it was deleted; nothing was changed", id, queue)
	case -1:
		return domain.Errorf(domain.ECONFLICT, "the lease of job %q passed on to another consumer: your lease ended and the job was delivered again (or the token is not one a poll gave for it), so this %s changed nothing", id, op)
	case -2:
		return domain.Errorf(domain.ECONFLICT, "the lease of job %q ended at %s, before this %s: the job goes back to queue %q to be delivered again; nothing was changed", id, at(), op, queue)
	case -3:
		return domain.Errorf(domain.ECONFLICT, "the lease of job %q ended and the job was given back (to queue %q, or to its dead set once out of attempts): this token no longer works, so this %s changed nothing", id, queue, op)
	case -4:
		return domain.Errorf(domain.ECONFLICT, "job %q was completed at %s by another consumer: your lease had ended, so this %s changed nothing", id, at(), op)
	case -5:
		return domain.Errorf(domain.ECONFLICT, "job %q was acked with this token at %s: its lease is over, so this %s changed nothing", id, at(), op)
	}
	return fmt.Errorf("queues.leaseRefused: %s: unexpected reply %v", op, vals)
}

func (q *Queues) AttemptErrors(ctx context.Context, queue, id string) ([]domain.AttemptError, error) {
	if err := validateQueueJob(queue, id); err != nil {
		return nil, err
	}
	raw, err := q.Rdb.HGet(ctx, q.keys.QueueErrors(queue), id).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil:
		return nil, store.OpError("queues.Queues.AttemptErrors", err)
	}
	return decodeAttemptErrors(raw), nil
}

// decodeAttemptErrors reads a job's list from the errors hash (luaAddError's JSON: at in
// epoch ms). A damaged list reads as none.
func decodeAttemptErrors(raw string) []domain.AttemptError {
	var list []struct {
		Attempt    json.Number `json:"attempt"`
		At         json.Number `json:"at"`
		Error      string      `json:"error"`
		DurationMs json.Number `json:"duration_ms"`
		Edit       string      `json:"edit"`
	}
	if json.Unmarshal([]byte(raw), &list) != nil {
		return nil
	}
	out := make([]domain.AttemptError, 0, len(list))
	for _, e := range list {
		n, _ := strconv.ParseFloat(string(e.Attempt), 64)
		ms, _ := strconv.ParseFloat(string(e.At), 64)
		a := domain.AttemptError{Attempt: int(n), At: time.UnixMilli(int64(ms)).UTC(), Error: e.Error, Edit: e.Edit}
		if d, err := strconv.ParseFloat(string(e.DurationMs), 64); err == nil {
			a.DurationMs = new(int64(d))
		}
		out = append(out, a)
	}
	return out
}

func validateLeaseOp(queue, id, token string) error {
	if err := validateQueueJob(queue, id); err != nil {
		return err
	}
	return domain.ValidateLeaseToken(token)
}
