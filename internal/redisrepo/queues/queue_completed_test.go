package queues

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// queuesKeeping builds Queues over rdb as Open does, keeping completed jobs as p says.
func queuesKeeping(t *testing.T, rdb redis.UniversalClient, p domain.CompletedPolicy) (*Queues, *domain.ManualClock) {
	t.Helper()
	clock := domain.NewManualClock(testNow)
	q, _ := openQueues(t, rdb, clock, 4)
	q.completed = p // a policy of the test's own, as NewQueues takes it
	return q, clock
}

// An acked job reads as completed: when, how long from its lease, by which consumer, after
// how many attempts; its payload only when payloads are kept. The list of completed jobs is
// newest first, counted, paged and searchable; the record keeps the newest Keep and drops
// what is older than MaxAge, on one server and on the Cluster.
func TestAckKeepsCompletedJobs(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testAckKeepsCompletedJobs)
}

func testAckKeepsCompletedJobs(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	q, clock := queuesKeeping(t, rdb, domain.CompletedPolicy{Keep: 3, MaxAge: time.Hour, Payloads: true})
	run := func(id, payload string, took time.Duration) {
		t.Helper()
		enqueueWithPayload(t, q, "mail", id, payload)
		d, ok := poll(t, q, "mail", domain.PollOptions{Lease: time.Minute, Consumer: "worker-7"})
		if !ok || d.ID != id {
			t.Fatalf("poll = %+v, %v; want %s", d, ok, id)
		}
		clock.Advance(took)
		if err := q.Ack(ctx, "mail", id, d.Token); err != nil {
			t.Fatalf("Ack(%s): %v", id, err)
		}
	}
	run("j1", `{"to":"ann@example.com"}`, 1500*time.Millisecond)
	j, err := q.Job(ctx, "mail", "j1")
	if err != nil {
		t.Fatalf("Job(j1) after its ack: %v", err)
	}
	if j.State != domain.JobCompleted || j.CompletedAt == nil || !j.CompletedAt.Equal(clock.Now().Truncate(time.Millisecond)) ||
		j.DurationMs == nil || *j.DurationMs != 1500 || j.Consumer != "worker-7" || j.Attempts != 1 || string(j.Payload) != `{"to":"ann@example.com"}` {
		t.Fatalf("Job(j1) = %+v; want completed now, 1500 ms, worker-7, 1 attempt, its payload", j)
	}

	for i := 2; i <= 5; i++ {
		clock.Advance(time.Second)
		run(fmt.Sprintf("j%d", i), fmt.Sprintf(`{"n":%d}`, i), 10*time.Millisecond)
	}
	page, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobCompleted, Limit: 2})
	if err != nil {
		t.Fatalf("Jobs(completed): %v", err)
	}
	if len(page.Jobs) != 2 || page.Jobs[0].ID != "j5" || page.Jobs[1].ID != "j4" || page.Counts.Completed != 3 || page.Next == "" {
		t.Fatalf("first page = %+v; want j5, j4 (newest first), 3 kept, a next page", page)
	}
	next, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobCompleted, Limit: 2, Cursor: page.Next})
	if err != nil || len(next.Jobs) != 1 || next.Jobs[0].ID != "j3" || next.Next != "" {
		t.Fatalf("second page = %+v, %v; want j3 and no more (j1, j2: over the 3 kept)", next, err)
	}
	if _, err := q.Job(ctx, "mail", "j1"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("Job(j1), past the 3 kept = %v; want not_found", err)
	}
	if n := rdb.HLen(ctx, store.DefaultKeys.QueueDoneInfo("mail")).Val(); n != 3 {
		t.Errorf("info kept for %d jobs; want 3, trimmed with the record", n)
	}
	found, err := q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobCompleted, Text: `"n":4`, Limit: 10})
	if err != nil || len(found.Jobs) != 1 || found.Jobs[0].ID != "j4" || found.Jobs[0].Match != "payload" {
		t.Fatalf("search of completed payloads = %+v, %v; want j4 by its payload", found, err)
	}

	clock.Advance(time.Hour - 2*time.Second) // j3 (acked 2 s before j5) is past the hour, j4 and j5 not
	page, err = q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobCompleted, Limit: 10})
	if err != nil || len(page.Jobs) != 2 || page.Counts.Completed != 2 {
		t.Fatalf("after an hour = %+v, %v; want j5, j4 (j3 is older than the max age)", page, err)
	}
	if _, err := q.Job(ctx, "mail", "j3"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("Job(j3) past the max age = %v; want not_found", err)
	}
	clock.Advance(time.Hour)
	run("j6", "", 0) // the next ack trims what aged out
	if ids := rdb.ZRange(ctx, store.DefaultKeys.QueueDone("mail"), 0, -1).Val(); len(ids) != 1 || ids[0] != "j6" {
		t.Errorf("kept after an ack two hours on = %v; want [j6]", ids)
	}
	if n := rdb.HLen(ctx, store.DefaultKeys.QueueDonePayloads("mail")).Val(); n != 0 {
		t.Errorf("payloads kept = %d; want 0 (j6 has none, the others aged out)", n)
	}
}

// Without Payloads, nothing of the payload is kept; with Keep 0, nothing at all: the ack is
// what it was.
func TestCompletedPayloadsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, p := range []domain.CompletedPolicy{domain.DefaultCompletedPolicy, {Keep: 0, MaxAge: time.Hour}} {
		rdb := redistest.DB(t)
		q, _ := queuesKeeping(t, rdb, p)
		enqueueWithPayload(t, q, "mail", "secret", `{"password":"hunter2"}`)
		d, _ := poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
		if err := q.Ack(ctx, "mail", "secret", d.Token); err != nil {
			t.Fatalf("Ack: %v", err)
		}
		if n := rdb.Exists(ctx, store.DefaultKeys.QueueDonePayloads("mail")).Val(); n != 0 {
			t.Errorf("%+v: payloads kept; want none", p)
		}
		j, err := q.Job(ctx, "mail", "secret")
		switch {
		case p.Keep == 0 && domain.ErrorCode(err) != domain.ENOTFOUND:
			t.Errorf("keep 0: Job = %+v, %v; want not_found", j, err)
		case p.Keep > 0 && (err != nil || j.State != domain.JobCompleted || j.Payload != nil || j.DurationMs == nil || j.Consumer != ""):
			t.Errorf("Job = %+v, %v; want completed without payload, a duration, no consumer", j, err)
		}
	}
}
