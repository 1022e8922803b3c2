package queues

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if domain.ErrorCode(err) != code {
		t.Errorf("%s = %v, want %s", what, err, code)
	}
}

// Consumer A's lease runs out, the job goes to B; A's late ack, extend and nack are refused
// (ECONFLICT) and change nothing, and B's ack completes the job.
func TestLateAckAfterRedeliveryConflicts(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	enqueue(t, q, "email-jobs", "invoice", 1)
	a, _ := poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if a.ID != "invoice" || a.Attempt != 1 || len(a.Token) != 32 {
		t.Fatalf("A's lease = %+v; want invoice, attempt 1, a 32-hex-digit token", a)
	}

	clock.Advance(10 * time.Second) // A's deadline: the lease has ended even before the reaper runs
	err := q.Ack(ctx, "email-jobs", "invoice", a.Token)
	wantCode(t, "A's ack at its deadline", err, domain.ECONFLICT)
	if !strings.Contains(domain.ErrorMessage(err), "ended at") {
		t.Errorf("message %q should say when the lease ended", domain.ErrorMessage(err))
	}
	if r, _, _ := q.Reap(ctx, 1); r != 1 {
		t.Fatalf("reap returned %d jobs, want 1", r)
	}
	err = q.Ack(ctx, "email-jobs", "invoice", a.Token)
	wantCode(t, "A's ack after the reaper gave the job back", err, domain.ECONFLICT)
	if !strings.Contains(domain.ErrorMessage(err), "given back") {
		t.Errorf("message %q should say the job was given back", domain.ErrorMessage(err))
	}

	b, _ := poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if b.ID != "invoice" || b.Attempt != 2 || b.Token == a.Token {
		t.Fatalf("B's lease = %+v; want invoice, attempt 2, a new token", b)
	}
	err = q.Ack(ctx, "email-jobs", "invoice", a.Token)
	wantCode(t, "A's late ack while B holds the job", err, domain.ECONFLICT)
	if !strings.Contains(domain.ErrorMessage(err), "passed on to another consumer") {
		t.Errorf("message %q should say the lease passed on", domain.ErrorMessage(err))
	}
	_, err = q.Extend(ctx, "email-jobs", "invoice", a.Token, time.Minute)
	wantCode(t, "A's late extend", err, domain.ECONFLICT)
	_, err = q.Nack(ctx, "email-jobs", "invoice", a.Token, 0, "late")
	wantCode(t, "A's late nack", err, domain.ECONFLICT)
	if d := rdb.ZScore(ctx, "{queue:email-jobs}:processing", "invoice").Val(); d != float64(clock.Now().Add(10*time.Second).UnixMilli()) {
		t.Errorf("B's deadline = %v after A's refused calls; want it untouched", d)
	}

	if err := q.Ack(ctx, "email-jobs", "invoice", b.Token); err != nil {
		t.Fatalf("B's ack: %v", err)
	}
	err = q.Ack(ctx, "email-jobs", "invoice", a.Token)
	wantCode(t, "A's ack after B completed the job", err, domain.ECONFLICT)
	if !strings.Contains(domain.ErrorMessage(err), "completed") {
		t.Errorf("message %q should say the job was completed", domain.ErrorMessage(err))
	}
	wantCode(t, "ack of a job never leased", q.Ack(ctx, "email-jobs", "nobody", a.Token), domain.ENOTFOUND)
	wantCode(t, "ack without a token", q.Ack(ctx, "email-jobs", "invoice", ""), domain.EINVALID)
}

// A heartbeat keeps a lease alive past its first deadline: the reaper leaves the job alone
// and the ack works.
func TestExtendKeepsLeaseAlive(t *testing.T) {
	t.Parallel()
	q, _, clock := newTestQueues(t)
	ctx := context.Background()
	enqueue(t, q, "reports", "monthly", 1)
	d, _ := poll(t, q, "reports", domain.PollOptions{Lease: 10 * time.Second})
	for range 3 {
		clock.Advance(8 * time.Second)
		deadline, err := q.Extend(ctx, "reports", "monthly", d.Token, 10*time.Second)
		if err != nil || !deadline.Equal(clock.Now().Add(10*time.Second)) {
			t.Fatalf("extend = %v, %v; want now + 10 s", deadline, err)
		}
		if r, died, err := q.Reap(ctx, 1); r+died != 0 || err != nil {
			t.Fatalf("reap after a heartbeat moved %d jobs, %v", r+died, err)
		}
	}
	// 24 s after the poll, 14 s past the first deadline.
	if err := q.Ack(ctx, "reports", "monthly", d.Token); err != nil {
		t.Fatalf("ack after heartbeats: %v", err)
	}
	_, err := q.Extend(ctx, "reports", "monthly", d.Token, time.Millisecond)
	wantCode(t, "extend by 1 ms", err, domain.EINVALID)
	_, err = q.Extend(ctx, "reports", "monthly", d.Token, 10*time.Second)
	wantCode(t, "extend after the ack", err, domain.ECONFLICT)
}

// A nack with a delay reschedules a delayed queue's job after now, counts the attempt and
// keeps its error; at max attempts a nack sends it to the dead set; the reaper's expiry is
// an attempt error too.
func TestNackReschedulesAndCounts(t *testing.T) {
	t.Parallel()
	q, _, clock := newTestQueues(t)
	ctx := context.Background()
	if _, err := q.UpdateSettings(ctx, "reminders", domain.QueueSettings{Kind: domain.DelayedQueue, MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Enqueue(ctx, "reminders", domain.NewJob{ID: "pay"}); err != nil {
		t.Fatal(err)
	}
	d, _ := poll(t, q, "reminders", domain.PollOptions{Lease: 10 * time.Second})
	where, err := q.Nack(ctx, "reminders", "pay", d.Token, 30*time.Second, "smtp: 451 try later")
	if err != nil || where != domain.Waiting {
		t.Fatalf("nack = %v, %v; want waiting", where, err)
	}
	st, _ := q.Stats(ctx, "reminders")
	if st.Processing != 0 || st.Scheduled != 1 || len(st.NextDue) != 1 || !st.NextDue[0].RunAt.Equal(clock.Now().Add(30*time.Second)) {
		t.Fatalf("after the nack: %+v; want the job scheduled 30 s from now", st)
	}
	if _, ok := poll(t, q, "reminders", domain.PollOptions{Lease: 10 * time.Second}); ok {
		t.Fatal("a poll before the delay took the job")
	}
	_, err = q.Nack(ctx, "reminders", "pay", d.Token, 0, "")
	wantCode(t, "a second nack with the same token", err, domain.ECONFLICT)

	clock.Advance(30 * time.Second)
	d, _ = poll(t, q, "reminders", domain.PollOptions{Lease: 10 * time.Second})
	if d.ID != "pay" || d.Attempt != 2 {
		t.Fatalf("after the delay = %+v; want pay, attempt 2", d)
	}
	clock.Advance(10 * time.Second)
	if r, _, _ := q.Reap(ctx, 1); r != 1 {
		t.Fatalf("reap returned %d, want 1", r)
	}
	d, _ = poll(t, q, "reminders", domain.PollOptions{Lease: 10 * time.Second})
	if where, err := q.Nack(ctx, "reminders", "pay", d.Token, 0, "still down"); err != nil || where != domain.DeadLetter || d.Attempt != 3 {
		t.Fatalf("nack of attempt %d of 3 = %v, %v; want dead", d.Attempt, where, err)
	}
	errs, err := q.AttemptErrors(ctx, "reminders", "pay")
	if err != nil || len(errs) != 3 {
		t.Fatalf("attempt errors = %+v, %v; want 3", errs, err)
	}
	for i, want := range []string{"smtp: 451 try later", domain.LeaseEndedError, "still down"} {
		if errs[i].Attempt != i+1 || errs[i].Error != want {
			t.Errorf("error %d = %+v; want attempt %d, %q", i, errs[i], i+1, want)
		}
	}
	if !errs[0].At.Equal(testNow) {
		t.Errorf("first error at %v, want %v", errs[0].At, testNow)
	}

	// Bad input changes nothing.
	enqueue(t, q, "email-jobs", "welcome", 2)
	d, _ = poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	for _, delay := range []time.Duration{-time.Millisecond, domain.MaxDelay + time.Millisecond, time.Microsecond} {
		_, err = q.Nack(ctx, "email-jobs", "welcome", d.Token, delay, "")
		wantCode(t, "nack with delay "+delay.String(), err, domain.EINVALID)
	}
	_, err = q.Nack(ctx, "email-jobs", "welcome", d.Token, 0, strings.Repeat("x", domain.MaxErrorBytes+1))
	wantCode(t, "nack with a 4 KiB+1 error", err, domain.EINVALID)
	if where, err := q.Nack(ctx, "email-jobs", "welcome", d.Token, 0, ""); err != nil || where != domain.Waiting {
		t.Fatalf("nack without a delay = %v, %v", where, err)
	}
	if d2, _ := poll(t, q, "email-jobs", domain.PollOptions{}); d2.ID != "welcome" || d2.Score != d.Score {
		t.Errorf("after the nack the poll took %+v; want welcome at its own score %v", d2, d.Score)
	}
}

// An enqueue retried after its job completed is recognised and refused, whether the job was
// acked or taken without a lease; after the retention the id is free again.
func TestRetriedEnqueueAfterCompletion(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	enqueue(t, q, "email-jobs", "receipt-42", 1)
	d, _ := poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if err := q.Ack(ctx, "email-jobs", "receipt-42", d.Token); err != nil {
		t.Fatal(err)
	}
	_, err := q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "receipt-42", Priority: 1, HasPriority: true})
	wantCode(t, "the retried enqueue", err, domain.ECONFLICT)
	if !strings.Contains(domain.ErrorMessage(err), "already ran") {
		t.Errorf("message %q should say the job already ran", domain.ErrorMessage(err))
	}
	if n := rdb.ZCard(ctx, "queue:email-jobs").Val(); n != 0 {
		t.Errorf("the queue holds %d jobs after the refused retry", n)
	}

	enqueue(t, q, "email-jobs", "plain", 1)
	poll(t, q, "email-jobs", domain.PollOptions{})
	_, err = q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "plain", Priority: 1, HasPriority: true})
	wantCode(t, "a retry after a poll without lease", err, domain.ECONFLICT)

	clock.Advance(domain.CompletedRetention)
	enqueue(t, q, "email-jobs", "receipt-42", 1) // a new job: the retention is over
	enqueue(t, q, "email-jobs", "other", 1)
	d, _ = poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if err := q.Ack(ctx, "email-jobs", d.ID, d.Token); err != nil {
		t.Fatal(err)
	}
	// That completion trimmed what the retention let go.
	if ids := rdb.ZRange(ctx, "{queue:email-jobs}:completed", 0, -1).Val(); len(ids) != 1 || ids[0] != d.ID {
		t.Errorf("completed record = %v, want only %s", ids, d.ID)
	}
	if n := rdb.HLen(ctx, "{queue:email-jobs}:acked").Val(); n != 1 {
		t.Errorf("ack tokens = %d, want 1", n)
	}
	if ttl := rdb.PTTL(ctx, "{queue:email-jobs}:completed").Val(); ttl <= 0 || ttl > domain.CompletedRetention {
		t.Errorf("the record's TTL = %v, want the retention", ttl)
	}
}

// The lease scripts run on miniredis too (the embedded Redis of `make run`), with lease times
// from its TIME.
func TestLeaseScriptsRunOnMiniredis(t *testing.T) {
	t.Parallel()
	m := miniredis.RunT(t)
	m.SetTime(testNow)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()
	q, _ := openQueues(t, rdb, nil, 4)
	ctx := context.Background()
	enqueue(t, q, "email-jobs", "a", 1)
	enqueue(t, q, "email-jobs", "b", 2)
	d, _ := poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if d.ID != "a" || !d.LeaseDeadline.Equal(testNow.Add(10*time.Second)) {
		t.Fatalf("lease = %+v; want a, deadline from miniredis's TIME", d)
	}
	if deadline, err := q.Extend(ctx, "email-jobs", "a", d.Token, 20*time.Second); err != nil || !deadline.Equal(testNow.Add(20*time.Second)) {
		t.Errorf("extend = %v, %v", deadline, err)
	}
	if where, err := q.Nack(ctx, "email-jobs", "a", d.Token, 0, "boom"); err != nil || where != domain.Waiting {
		t.Errorf("nack = %v, %v", where, err)
	}
	if errs, err := q.AttemptErrors(ctx, "email-jobs", "a"); err != nil || len(errs) != 1 || errs[0].Error != "boom" || !errs[0].At.Equal(testNow) {
		t.Errorf("attempt errors = %+v, %v", errs, err)
	}
	d, _ = poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	m.SetTime(testNow.Add(10 * time.Second))
	if r, _, err := q.Reap(ctx, 1); r != 1 || err != nil {
		t.Errorf("reap = %d, %v", r, err)
	}
	wantCode(t, "ack after the reap", q.Ack(ctx, "email-jobs", "a", d.Token), domain.ECONFLICT)
	d, _ = poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if err := q.Ack(ctx, "email-jobs", d.ID, d.Token); err != nil || d.ID != "a" || d.Attempt != 3 {
		t.Errorf("ack of %+v: %v", d, err)
	}
	if d, _ := poll(t, q, "email-jobs", domain.PollOptions{}); d.ID != "b" {
		t.Errorf("plain poll = %+v, want b", d)
	}
	for _, id := range []string{"a", "b"} {
		_, err := q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: id, Priority: 1, HasPriority: true})
		wantCode(t, "retried enqueue of "+id, err, domain.ECONFLICT)
	}
}

// The article's worker with a lease nacks a job whose handler failed, with the handler's
// error, so it comes back at once instead of after its lease.
func TestDrainDueNacksFailures(t *testing.T) {
	t.Parallel()
	q, _, _ := newTestQueues(t)
	ctx := context.Background()
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "flaky"}); err != nil {
		t.Fatal(err)
	}
	fail := true
	n, err := domain.DrainDue(ctx, q, "delayed", time.Minute, func(context.Context, domain.Delivery) error {
		if fail {
			fail = false
			return errors.New("smtp: connection refused")
		}
		return nil
	})
	if n != 2 || err != nil {
		t.Fatalf("drained %d, %v; want the job twice: nacked, then acked", n, err)
	}
	if errs, _ := q.AttemptErrors(ctx, "delayed", "flaky"); len(errs) != 0 {
		t.Errorf("errors kept after the ack: %+v", errs)
	}
	st, _ := q.Stats(ctx, "delayed")
	if st.Total != 0 || st.Processing != 0 {
		t.Errorf("after the drain: %+v; want nothing left", st)
	}
}
