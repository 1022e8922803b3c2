package queues

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// nackLater leases the next job of queue and nacks it with delay; it returns the delivery.
func nackLater(t *testing.T, q *Queues, queue string, delay time.Duration) domain.Delivery {
	t.Helper()
	d, ok := poll(t, q, queue, domain.PollOptions{Lease: 10 * time.Second})
	if !ok {
		t.Fatalf("nothing to lease in %s", queue)
	}
	where, err := q.Nack(context.Background(), queue, d.ID, d.Token, delay, "try later")
	if err != nil || where != domain.Retrying {
		t.Fatalf("Nack(%s, %v) = %v, %v; want scheduled", d.ID, delay, where, err)
	}
	return d
}

// A priority queue's job nacked with a delay is taken by nobody before its time (a zpulse
// poll, leased or not, nor a direct ZPOPMIN of queue:<name>, the article's consumer), is seen
// as scheduled meanwhile, and then comes back at its priority in its place: ahead of a
// lower priority job enqueued before it.
func TestPriorityNackWithDelay(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		q, clock := newTestQueuesOn(t, rdb)
		ctx := context.Background()
		job := prio(3)
		job.ID, job.Payload = "x", json.RawMessage(`{"n":1}`)
		enq, err := q.Enqueue(ctx, "solo", job)
		if err != nil {
			t.Fatal(err)
		}
		d := nackLater(t, q, "solo", 30*time.Second)
		due := clock.Now().Add(30 * time.Second)

		j, err := q.Job(ctx, "solo", "x")
		if err != nil || j.State != domain.JobScheduled || j.RetryAt == nil || !j.RetryAt.Equal(due) ||
			j.Priority == nil || *j.Priority != 3 || j.Score != enq.Score || string(j.Payload) != `{"n":1}` {
			t.Fatalf("the retrying job = %+v, %v; want scheduled, retry at %v, priority 3, its score and payload", j, err, due)
		}
		st, _ := q.Stats(ctx, "solo")
		if st.Scheduled != 1 || st.Total != 1 || st.Due != 0 || len(st.NextDue) != 1 || !st.NextDue[0].RunAt.Equal(due) {
			t.Fatalf("stats = %+v; want 1 scheduled, due %v", st, due)
		}
		v, _ := q.View(ctx, "solo")
		if v.Scheduled != 1 || len(v.NextDue) != 1 || v.NextDue[0].Priority != 3 || v.NextDue[0].Attempts != 1 {
			t.Fatalf("view = %+v; want 1 retrying at priority 3 after 1 attempt", v)
		}
		page, _ := q.Jobs(ctx, "solo", domain.JobListOptions{State: domain.JobScheduled, Limit: 10})
		if len(page.Jobs) != 1 || page.Jobs[0].ID != "x" || !page.Jobs[0].At.Equal(due) || page.Counts.Scheduled != 1 || page.Counts.Waiting != 0 {
			t.Fatalf("scheduled jobs = %+v", page)
		}
		_, err = q.Enqueue(ctx, "solo", job)
		wantCode(t, "enqueue of the retrying id", err, domain.ECONFLICT)
		k := domain.DelayedQueue
		_, err = q.PatchSettings(ctx, "solo", domain.QueueSettingsPatch{Kind: &k})
		wantCode(t, "a kind change under a retrying job", err, domain.ECONFLICT)

		clock.Advance(30*time.Second - time.Millisecond)
		if got, ok := poll(t, q, "solo", domain.PollOptions{}); ok {
			t.Fatalf("a plain poll before the delay took %+v", got)
		}
		if got, ok := poll(t, q, "solo", domain.PollOptions{Lease: time.Minute}); ok {
			t.Fatalf("a leased poll before the delay took %+v", got)
		}
		if _, _, err := q.Reap(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if z, _ := rdb.ZPopMin(ctx, "queue:solo").Result(); len(z) != 0 {
			t.Fatalf("a direct ZPOPMIN before the delay took %v", z)
		}

		clock.Advance(time.Millisecond)
		got, ok := poll(t, q, "solo", domain.PollOptions{Lease: time.Minute})
		if !ok || got.ID != "x" || got.Attempt != 2 || got.Score != d.Score || string(got.Payload) != `{"n":1}` || got.Priority == nil || *got.Priority != 3 {
			t.Fatalf("after the delay = %+v, %v; want x, attempt 2, its score %v and payload", got, ok, d.Score)
		}

		// Its place in line: priority first, so it goes ahead of a lower priority job that
		// waited all along.
		enqueue(t, q, "mail", "low", 5)
		clock.Advance(time.Millisecond)
		enqueue(t, q, "mail", "flaky", 1)
		if f := nackLater(t, q, "mail", time.Minute); f.ID != "flaky" {
			t.Fatalf("leased %s, want flaky", f.ID)
		}
		if got, _ := poll(t, q, "mail", domain.PollOptions{}); got.ID != "low" {
			t.Fatalf("during the delay the poll took %q, want low", got.ID)
		}
		enqueue(t, q, "mail", "low2", 5)
		clock.Advance(time.Minute)
		for _, want := range []string{"flaky", "low2"} {
			if got, _ := poll(t, q, "mail", domain.PollOptions{}); got.ID != want {
				t.Fatalf("after the delay the poll took %q, want %s", got.ID, want)
			}
		}
	})
}

// The reaper brings due retries back for the article's consumers, which ZPOPMIN queue:<name>
// directly and never call zpulse; at most 100 per script call, and as many calls as it takes.
func TestPriorityRetryReaperPromotes(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		clock := domain.NewManualClock(testNow)
		q, found := openQueues(t, rdb, clock, 4)
		ctx := context.Background()
		e := enqueue(t, q, "direct", "a", 2)
		nackLater(t, q, "direct", 10*time.Second)
		clock.Advance(10 * time.Second)
		if z, _ := rdb.ZPopMin(ctx, "queue:direct").Result(); len(z) != 0 {
			t.Fatalf("before any reaper round a direct ZPOPMIN took %v", z)
		}
		if r, _, err := q.Reap(ctx, 1); r != 1 || err != nil {
			t.Fatalf("reap = %d, %v; want 1 back", r, err)
		}
		z, _ := rdb.ZPopMin(ctx, "queue:direct").Result()
		if len(z) != 1 || z[0].Member != "a" || z[0].Score != e.Score {
			t.Fatalf("the direct ZPOPMIN took %v; want a at its score %v", z, e.Score)
		}

		// 150 due at once: one script call moves 100, the reaper all of them.
		now := float64(clock.Now().UnixMilli())
		for i := range 150 {
			id := fmt.Sprintf("b%03d", i)
			rdb.ZAdd(ctx, store.DefaultKeys.QueueRetry("bulk"), redis.Z{Score: now, Member: id})
			rdb.HSet(ctx, store.DefaultKeys.QueueScores("bulk"), id, 4*domain.PriorityFactor+now)
		}
		rdb.SAdd(ctx, store.DefaultKeys.QueueIndex(), "bulk")
		vals, err := PromoteScript.Run(ctx, rdb, q.PromoteKeys("bulk"), clock.Now().UnixMilli()).Int64Slice()
		if err != nil || len(vals) != 2 || vals[0] != 100 || vals[1] != 1 {
			t.Fatalf("one promote call = %v, %v; want 100 moved, more to come", vals, err)
		}
		found.Add(store.KindQueue, "bulk") // as an enqueue through zpulse would
		if r, _, err := q.Reap(ctx, 1); r != 50 || err != nil {
			t.Fatalf("reap = %d, %v; want the other 50 back", r, err)
		}
		if n := rdb.ZCard(ctx, "queue:bulk").Val(); n != 150 {
			t.Fatalf("queue:bulk holds %d, want 150", n)
		}
	})
}

// Pollers racing a reaper at the due time get each retried job exactly once.
func TestPriorityRetryRace(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		q, clock := newTestQueuesOn(t, rdb)
		ctx := context.Background()
		const jobs = 30
		for i := range jobs {
			enqueue(t, q, "race", fmt.Sprintf("j%02d", i), i%10)
		}
		for range jobs {
			nackLater(t, q, "race", 5*time.Second)
		}
		clock.Advance(5 * time.Second)
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for {
					d, ok, err := q.Poll(ctx, "race", domain.PollOptions{Lease: time.Minute})
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					seen[d.ID]++
					mu.Unlock()
				}
			})
			if w == 0 {
				wg.Go(func() {
					if _, _, err := q.Reap(ctx, 1); err != nil && !errors.Is(err, context.Canceled) {
						t.Error(err)
					}
				})
			}
		}
		wg.Wait()
		// A job the reaper moved after every poller stopped is still waiting: take it too.
		for {
			d, ok := poll(t, q, "race", domain.PollOptions{Lease: time.Minute})
			if !ok {
				break
			}
			seen[d.ID]++
		}
		if len(seen) != jobs {
			t.Fatalf("%d distinct jobs delivered, want %d", len(seen), jobs)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s delivered %d times", id, n)
			}
		}
	})
}

// A retrying job keeps its payload through the reaper's orphan sweep, and deleting it removes
// it from the retry set with everything kept beside it.
func TestPriorityRetryPayloadAndDelete(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	job := prio(0)
	job.ID, job.Payload = "p", json.RawMessage(`"keep me"`)
	if _, err := q.Enqueue(ctx, "pq", job); err != nil {
		t.Fatal(err)
	}
	nackLater(t, q, "pq", time.Hour)
	if _, _, err := q.Reap(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(domain.OrphanGrace + time.Minute)
	if _, _, err := q.Reap(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Job(ctx, "pq", "p"); err != nil || string(j.Payload) != `"keep me"` {
		t.Fatalf("after the orphan sweep = %+v, %v; want the payload kept", j, err)
	}
	if where, err := q.Delete(ctx, "pq", "p"); err != nil || where != domain.Retrying {
		t.Fatalf("Delete = %v, %v; want scheduled", where, err)
	}
	for _, key := range []string{store.DefaultKeys.QueueRetry("pq"), store.DefaultKeys.QueueScores("pq"), store.DefaultKeys.QueueJobs("pq"), store.DefaultKeys.QueueAttempts("pq")} {
		if n := rdb.Exists(ctx, key).Val(); n != 0 {
			t.Errorf("%s is left after the delete", key)
		}
	}
	_, err := q.Job(ctx, "pq", "p")
	wantCode(t, "the deleted job", err, domain.ENOTFOUND)
}
