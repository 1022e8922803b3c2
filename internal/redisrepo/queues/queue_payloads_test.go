package queues

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

func withPayload(id string, p int, payload string) domain.NewJob {
	j := prio(p)
	j.ID, j.Payload = id, json.RawMessage(payload)
	return j
}

// A job taken by a foreign ZPOPMIN and re-added under the same id (the article's consumer and
// producer) is a new job: no delivery path hands it the old payload, and the old payload is
// an orphan, counted on the queue page, gone after the grace period.
func TestForeignTakeAndReAddNeverGetsTheOldPayload(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"poll", "lease", "take"} {
		t.Run(how, func(t *testing.T) {
			q, rdb, clock := newTestQueues(t)
			ctx := context.Background()
			if _, err := q.Enqueue(ctx, "mail", withPayload("j1", 3, `{"to":"old"}`)); err != nil {
				t.Fatal(err)
			}
			rdb.ZPopMin(ctx, "queue:mail") // the article's poll()
			clock.Advance(5 * time.Millisecond)
			rdb.ZAdd(ctx, "queue:mail", redis.Z{Score: 3e13 + float64(clock.Now().UnixMilli()), Member: "j1"}) // its enqueue()
			var d domain.Delivery
			var ok bool
			switch how {
			case "poll":
				d, ok = poll(t, q, "mail", domain.PollOptions{})
			case "lease":
				d, ok = poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
			case "take":
				d, ok = poll(t, q, "mail", domain.PollOptions{Wait: time.Second})
			}
			if !ok || d.ID != "j1" || d.Payload != nil {
				t.Errorf("%s delivered %+v (payload %s), want j1 without the old payload", how, d, d.Payload)
			}
		})
	}
}

// The payload of a job zpulse enqueued still reaches it, through every path that keeps its
// score: a plain poll, a lease, a reaped lease leased again, a requeue from the dead set.
func TestBoundPayloadFollowsItsJob(t *testing.T) {
	t.Parallel()
	q, _, clock := newTestQueues(t)
	ctx := context.Background()
	two := 2
	if _, err := q.PatchSettings(ctx, "mail", domain.QueueSettingsPatch{MaxAttempts: &two}); err != nil {
		t.Fatal(err)
	}
	q.Enqueue(ctx, "mail", withPayload("a", 1, `{"n":1}`))
	if d, _ := poll(t, q, "mail", domain.PollOptions{}); string(d.Payload) != `{"n":1}` {
		t.Errorf("poll payload = %s", d.Payload)
	}
	q.Enqueue(ctx, "mail", withPayload("b", 1, `{"n":2}`))
	for range 2 { // leased, lease ends, reaped back, leased again, dies
		if d, _ := poll(t, q, "mail", domain.PollOptions{Lease: time.Second}); string(d.Payload) != `{"n":2}` {
			t.Errorf("lease payload = %s", d.Payload)
		}
		clock.Advance(2 * time.Second)
		if _, _, err := q.Reap(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Second)
	if err := q.Requeue(ctx, "mail", "b"); err != nil {
		t.Fatal(err)
	}
	if d, _ := poll(t, q, "mail", domain.PollOptions{}); d.ID != "b" || string(d.Payload) != `{"n":2}` {
		t.Errorf("after requeue: %+v payload %s", d, d.Payload)
	}
}

// Orphans wait the grace period, counted on the queue's page, then the reaper removes them;
// a payload whose job is still there is never touched.
func TestOrphanedPayloadsRemovedAfterGrace(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	q.Enqueue(ctx, "mail", withPayload("gone", 2, `{"x":1}`))
	q.Enqueue(ctx, "mail", withPayload("readded", 2, `{"x":2}`))
	q.Enqueue(ctx, "mail", withPayload("kept", 2, `{"x":3}`))
	rdb.ZRem(ctx, "queue:mail", "gone", "readded") // taken by a foreign consumer
	rdb.ZAdd(ctx, "queue:mail", redis.Z{Score: 2e13 + float64(clock.Now().UnixMilli()) + 7, Member: "readded"})
	if _, _, err := q.Reap(ctx, 1); err != nil {
		t.Fatal(err)
	}
	v, err := q.View(ctx, "mail")
	if err != nil || v.Orphans != 2 {
		t.Fatalf("orphans on the page = %d, %v; want 2", v.Orphans, err)
	}
	clock.Advance(domain.OrphanGrace - time.Millisecond)
	q.Reap(ctx, 1)
	if n := rdb.HLen(ctx, "{queue:mail}:jobs").Val(); n != 3 {
		t.Errorf("payloads before the grace period ended = %d, want 3", n)
	}
	clock.Advance(time.Millisecond)
	q.Reap(ctx, 1)
	if got := rdb.HKeys(ctx, "{queue:mail}:jobs").Val(); len(got) != 1 || got[0] != "kept" {
		t.Errorf("payloads after the grace period = %v, want [kept]", got)
	}
	if v, _ := q.View(ctx, "mail"); v.Orphans != 0 {
		t.Errorf("orphans after removal = %d", v.Orphans)
	}
}

// A delayed nack moves the job's score: its payload moves with it.
func TestDelayedNackKeepsThePayload(t *testing.T) {
	t.Parallel()
	q, _, clock := newTestQueues(t)
	ctx := context.Background()
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "r", Payload: json.RawMessage(`{"n":7}`)}); err != nil {
		t.Fatal(err)
	}
	d, _ := poll(t, q, "delayed", domain.PollOptions{Lease: time.Minute})
	if _, err := q.Nack(ctx, "delayed", "r", d.Token, time.Second, "retry later"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if d, ok := poll(t, q, "delayed", domain.PollOptions{Lease: time.Minute}); !ok || string(d.Payload) != `{"n":7}` {
		t.Errorf("after a delayed nack: %+v payload %s", d, d.Payload)
	}
}

// Requeueing every dead job at once moves their scores: their payloads move with them, and a
// job's page shows its payload, not one bound to an earlier enqueue.
func TestRequeueAllDeadKeepsPayloads(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	one := 1
	if _, err := q.PatchSettings(ctx, "mail", domain.QueueSettingsPatch{MaxAttempts: &one}); err != nil {
		t.Fatal(err)
	}
	q.Enqueue(ctx, "mail", withPayload("a", 1, `{"n":1}`))
	poll(t, q, "mail", domain.PollOptions{Lease: time.Second})
	clock.Advance(2 * time.Second)
	if _, died, err := q.Reap(ctx, 1); err != nil || died != 1 {
		t.Fatalf("reap: %d died, %v", died, err)
	}
	clock.Advance(time.Second)
	if _, err := q.RequeueDead(ctx, "mail"); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Job(ctx, "mail", "a"); err != nil || string(j.Payload) != `{"n":1}` {
		t.Errorf("job page after requeue: %s, %v", j.Payload, err)
	}
	if d, _ := poll(t, q, "mail", domain.PollOptions{}); d.ID != "a" || string(d.Payload) != `{"n":1}` {
		t.Errorf("after requeue all: %+v payload %s", d, d.Payload)
	}
	// A job re-added by another service under a waiting id's name shows no stale payload.
	q.Enqueue(ctx, "mail", withPayload("b", 1, `{"n":2}`))
	rdb.ZAdd(ctx, "queue:mail", redis.Z{Score: 1e13 + float64(clock.Now().UnixMilli()) + 9, Member: "b"})
	if j, _ := q.Job(ctx, "mail", "b"); j.Payload != nil {
		t.Errorf("job page shows %s for a job re-added under another score", j.Payload)
	}
}

// A delayed job taken by the article's POP_DUE and re-scheduled under the same id by another
// service is a new job: a plain poll of the delayed queue hands it no old payload either.
func TestDelayedPollOfReScheduledIDGetsNoOldPayload(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "r", Payload: json.RawMessage(`{"to":"old"}`)}); err != nil {
		t.Fatal(err)
	}
	rdb.ZRem(ctx, "queue:delayed", "r") // the article's POP_DUE took it
	clock.Advance(5 * time.Millisecond)
	rdb.ZAdd(ctx, "queue:delayed", redis.Z{Score: float64(clock.Now().UnixMilli()), Member: "r"}) // re-scheduled
	if d, ok := poll(t, q, "delayed", domain.PollOptions{}); !ok || d.ID != "r" || d.Payload != nil {
		t.Errorf("plain delayed poll delivered %+v (payload %s), want r without the old payload", d, d.Payload)
	}
	// zpulse's own delayed job keeps its payload through the same poll.
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "s", Payload: json.RawMessage(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	if d, ok := poll(t, q, "delayed", domain.PollOptions{}); !ok || d.ID != "s" || string(d.Payload) != `{"n":1}` ||
		d.Score != float64(clock.Now().UnixMilli()) {
		t.Errorf("plain delayed poll of zpulse's job: %+v payload %s", d, d.Payload)
	}
}
