package queues

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

const (
	concurrentJobs      = 10_000
	concurrentConsumers = 8
)

// fillQueue adds n jobs as the article's producer would, in one ZADD (a pipelined enqueue is
// the slow part of nothing under test here), with priorities 0..9.
func fillQueue(t *testing.T, rdb *redis.Client, queue string, n int) {
	t.Helper()
	zs := make([]redis.Z, n)
	for i := range zs {
		zs[i] = redis.Z{Score: float64(int64(i%10)*domain.PriorityFactor + testNow.UnixMilli() + int64(i)), Member: fmt.Sprintf("job-%05d", i)}
	}
	if err := rdb.ZAdd(context.Background(), "queue:"+queue, zs...).Err(); err != nil {
		t.Fatal(err)
	}
}

// 8 concurrent consumers over 10,000 jobs with plain polls: every job is delivered exactly once.
func TestConcurrentPollExactlyOnce(t *testing.T) {
	t.Parallel()
	q, _, _ := newTestQueues(t)
	fillQueue(t, q.Rdb.(*redis.Client), "bulk", concurrentJobs)
	got := make([][]string, concurrentConsumers)
	var wg sync.WaitGroup
	for c := range concurrentConsumers {
		wg.Go(func() {
			for {
				d, ok, err := q.Poll(context.Background(), "bulk", domain.PollOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				got[c] = append(got[c], d.ID)
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for c, ids := range got {
		if len(ids) == 0 {
			t.Errorf("consumer %d got no job: the test did not run concurrently", c)
		}
		for _, id := range ids {
			seen[id]++
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("job %s delivered %d times", id, n)
		}
	}
	if len(seen) != concurrentJobs {
		t.Errorf("%d distinct jobs delivered, want %d", len(seen), concurrentJobs)
	}
}

// 8 concurrent consumers over 10,000 jobs with leases, where a consumer dies without acking
// about one delivery in 20 (and is replaced): after the leases end and the reaper returns
// what the dead ones held, every job is completed at least once, none is lost.
func TestConcurrentLeasesLoseNothing(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	if _, err := q.UpdateSettings(ctx, "bulk", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 100}); err != nil {
		t.Fatal(err)
	}
	fillQueue(t, rdb, "bulk", concurrentJobs)
	var (
		mu        sync.Mutex
		completed = map[string]int{}
		died      int
	)
	consumer := func() (diedHolding bool) {
		for {
			d, ok, err := q.Poll(ctx, "bulk", domain.PollOptions{Lease: 30 * time.Second})
			if err != nil {
				t.Error(err)
				return false
			}
			if !ok {
				return false
			}
			if rand.IntN(20) == 0 {
				return true // dies holding the job: no ack
			}
			if err := q.Ack(ctx, "bulk", d.ID, d.Token); err != nil {
				t.Errorf("ack %s: %v", d.ID, err)
				return false
			}
			mu.Lock()
			completed[d.ID]++
			mu.Unlock()
		}
	}
	for round := 0; ; round++ {
		var wg sync.WaitGroup
		for range concurrentConsumers {
			wg.Go(func() {
				for consumer() { // a dead consumer is replaced until the queue is empty
					mu.Lock()
					died++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if t.Failed() || round > 50 {
			t.Fatalf("round %d: giving up", round)
		}
		clock.Advance(30 * time.Second) // every lease of the dead consumers ends
		returned, dead, err := q.Reap(ctx, 1)
		if err != nil || dead != 0 {
			t.Fatalf("reap: %d dead, %v", dead, err)
		}
		if returned == 0 {
			break
		}
	}
	if died == 0 {
		t.Fatal("no consumer died: the test proved nothing")
	}
	var missing []string
	for i := range concurrentJobs {
		if id := fmt.Sprintf("job-%05d", i); completed[id] == 0 {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d jobs never completed, e.g. %s", len(missing), strings.Join(missing[:min(5, len(missing))], ", "))
	}
	if n := rdb.Exists(ctx, "queue:bulk", "{queue:bulk}:processing", "{queue:bulk}:attempts", "{queue:bulk}:scores").Val(); n != 0 {
		t.Errorf("%d queue keys left after every job completed", n)
	}
	t.Logf("%d consumers died holding a job; every job completed", died)
}

// A blocked take (BZPOPMIN) runs on connections of its own: while it waits, commands on the
// main client, whose pool here has ONE connection, still complete; then an enqueue wakes it.
func TestBlockingTakeDelaysNothing(t *testing.T) {
	// Serial: it reads the server's count of blocked clients, which other tests' takes would add to.
	_, base, _ := newTestQueues(t)
	rdb := redis.NewClient(&redis.Options{Addr: base.Options().Addr, PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	q, _ := openQueues(t, rdb, nil, 2)

	type result struct {
		d   domain.Delivery
		ok  bool
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, ok, err := q.Poll(ctx, "email-jobs", domain.PollOptions{Wait: 20 * time.Second})
		done <- result{d, ok, err}
	}()
	// Wait until Redis has the take blocked.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if strings.Contains(base.Info(ctx, "clients").Val(), "blocked_clients:1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the take never blocked in Redis")
		}
	}
	for i := range 50 {
		if _, err := q.Enqueue(ctx, "other", domain.NewJob{ID: fmt.Sprint(i), Priority: 1, HasPriority: true}); err != nil {
			t.Fatalf("enqueue %d while a take is blocked: %v", i, err)
		}
		if _, err := q.Stats(ctx, "other"); err != nil {
			t.Fatalf("stats while a take is blocked: %v", err)
		}
	}
	select {
	case r := <-done:
		t.Fatalf("the take returned %+v before any job came: it did not block", r)
	default: // 100 commands completed while the take was still blocked
	}
	if _, err := q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "password-reset", HasPriority: true, Payload: []byte(`{"u":1}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || !r.ok || r.d.ID != "password-reset" || string(r.d.Payload) != `{"u":1}` {
			t.Errorf("take = %+v; want password-reset with its payload", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the enqueue did not wake the take")
	}
	if n := rdb.HLen(ctx, "{queue:email-jobs}:jobs").Val(); n != 0 {
		t.Errorf("the taken job's payload is still stored")
	}
	// A take that finds nothing ends after its wait with nothing.
	if _, ok, err := q.Poll(ctx, "email-jobs", domain.PollOptions{Wait: time.Second}); ok || err != nil {
		t.Errorf("take of an empty queue = %v, %v; want nothing", ok, err)
	}
}
