package queues

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// A job's type is kept beside it through every move: its page and the lists show it waiting,
// in flight, dead, after an edit-and-retry and completed; a poll hands it over; the
// article's encoding (the queue's sorted set, the payload hash) is left as it was; a delete
// and an enqueue of the id without a type drop it. On one server and on the Cluster.
func TestJobTypeFollowsTheJob(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testJobTypeFollowsTheJob)
}

func testJobTypeFollowsTheJob(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	q, clock := queuesKeeping(t, rdb, domain.CompletedPolicy{Keep: 10, MaxAge: time.Hour})
	if _, err := q.UpdateSettings(ctx, "mail", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	job := prio(1)
	job.ID, job.Type, job.Payload = "j1", "email.send", json.RawMessage(`{"to":"ann@example.com"}`)
	e, err := q.Enqueue(ctx, "mail", job)
	if err != nil || e.Type != "email.send" {
		t.Fatalf("Enqueue = %+v, %v; want its type back", e, err)
	}
	// The article's encoding is as it was: the id in the queue, "@<score>|<payload>" beside it.
	if raw := rdb.HGet(ctx, q.keys.QueueJobs("mail"), "j1").Val(); !strings.HasPrefix(raw, "@") || !strings.HasSuffix(raw, `|{"to":"ann@example.com"}`) {
		t.Fatalf("payload hash holds %q; want the article's layout untouched", raw)
	}
	wantType := func(state domain.JobState) {
		t.Helper()
		j, err := q.Job(ctx, "mail", "j1")
		if err != nil || j.State != state || j.Type != "email.send" {
			t.Fatalf("Job(j1) = %+v, %v; want %s, type email.send", j, err, state)
		}
		page, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: state, Limit: 10})
		if err != nil || len(page.Jobs) != 1 || page.Jobs[0].Type != "email.send" {
			t.Fatalf("Jobs(%s) = %+v, %v; want j1 with its type", state, page.Jobs, err)
		}
	}
	wantType(domain.JobWaiting)
	d, ok := poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
	if !ok || d.Type != "email.send" {
		t.Fatalf("poll = %+v, %v; want j1 with its type", d, ok)
	}
	wantType(domain.JobInFlight)
	if _, err := q.Nack(ctx, "mail", "j1", d.Token, 0, "smtp down"); err != nil { // its only attempt: dead
		t.Fatal(err)
	}
	wantType(domain.JobDead)
	if _, err := q.Retry(ctx, "mail", "j1", domain.JobRetry{Payload: json.RawMessage(`{"to":"bob@example.com"}`), HasPayload: true, Priority: 2, HasPriority: true}); err != nil {
		t.Fatal(err)
	}
	wantType(domain.JobWaiting)
	d, ok = poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
	if !ok || d.Type != "email.send" {
		t.Fatalf("poll after the retry = %+v, %v; want j1 with its type", d, ok)
	}
	clock.Advance(time.Second)
	if err := q.Ack(ctx, "mail", "j1", d.Token); err != nil {
		t.Fatal(err)
	}
	wantType(domain.JobCompleted)
	if n := rdb.HLen(ctx, q.keys.QueueTypes("mail")).Val(); n != 0 {
		t.Errorf("types hash holds %d entries after the ack; want the type moved to the completed jobs'", n)
	}

	// An untyped enqueue of an id drops an older type of it; a delete drops the type.
	job2 := prio(1)
	job2.ID, job2.Type = "j2", "report.build"
	if _, err := q.Enqueue(ctx, "mail", job2); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Delete(ctx, "mail", "j2"); err != nil {
		t.Fatal(err)
	}
	if n := rdb.HLen(ctx, q.keys.QueueTypes("mail")).Val(); n != 0 {
		t.Errorf("types hash holds %d entries after the delete; want none", n)
	}
	rdb.HSet(ctx, q.keys.QueueTypes("mail"), "j3", "stale")
	job3 := prio(1)
	job3.ID = "j3"
	if _, err := q.Enqueue(ctx, "mail", job3); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Job(ctx, "mail", "j3"); err != nil || j.Type != "" {
		t.Errorf("Job(j3) = %+v, %v; want no type (enqueued without one)", j, err)
	}
}

// A type the enqueue refuses: empty is taken as none by the service (the API refuses an
// explicit ""), too long, invalid UTF-8 or control characters: EINVALID naming type.
func TestEnqueueRefusesABadType(t *testing.T) {
	t.Parallel()
	q, _ := queuesKeeping(t, redistest.Client(t), domain.CompletedPolicy{})
	for name, typ := range map[string]string{
		"65 characters": strings.Repeat("é", 65),
		"invalid UTF-8": "mail\xff",
		"control":       "mail\nsend",
	} {
		job := prio(1)
		job.Type = typ
		_, err := q.Enqueue(context.Background(), "mail", job)
		if domain.ErrorCode(err) != domain.EINVALID || domain.ErrorField(err) != "type" {
			t.Errorf("%s: Enqueue = %v (field %q); want EINVALID naming type", name, err, domain.ErrorField(err))
		}
	}
	job := prio(1)
	job.Type = strings.Repeat("é", 64) // 64 characters, 128 bytes: allowed
	if _, err := q.Enqueue(context.Background(), "mail", job); err != nil {
		t.Errorf("64 characters: %v", err)
	}
}
