package queues

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// whereIs counts, for every job of queue, the sets that hold it (waiting, in flight, dead).
func whereIs(t *testing.T, q *Queues, queue string) map[string]int {
	t.Helper()
	ctx := context.Background()
	in := map[string]int{}
	for _, key := range []string{store.DefaultKeys.Queue(queue), store.DefaultKeys.QueueProcessing(queue), store.DefaultKeys.QueueDead(queue)} {
		ids, err := q.Rdb.ZRange(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			in[id]++
		}
	}
	return in
}

// Bulk requeues of the dead set (by match and by ids) racing 8 consumers that lease and fail
// every job (each failure kills it: one attempt): no job is lost or doubled, every nack finds
// its lease, and at the end each job is in exactly one set.
func TestBulkRequeueRacingPolls(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 1000
	if _, err := q.UpdateSettings(ctx, "race", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	fillQueue(t, rdb, "race", n)
	var deliveries, requeued atomic.Int64
	var consumers, operator sync.WaitGroup
	for range concurrentConsumers {
		consumers.Go(func() {
			for deliveries.Load() < 3*n && ctx.Err() == nil {
				d, ok, err := q.Poll(ctx, "race", domain.PollOptions{Lease: time.Minute})
				if err != nil {
					t.Error(err)
					cancel()
					return
				}
				if !ok {
					continue // everything is dead or leased: the operator requeues soon
				}
				deliveries.Add(1)
				if where, err := q.Nack(ctx, "race", d.ID, d.Token, 0, "fails"); err != nil || where != domain.DeadLetter {
					t.Errorf("nack %s: %v %v", d.ID, where, err)
					cancel()
					return
				}
			}
		})
	}
	done := make(chan struct{})
	operator.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			req := domain.BulkRequest{Action: domain.BulkRequeue, Match: &domain.JobSearchOptions{State: domain.JobDead, Text: "job-"}}
			if i%2 == 1 {
				req = domain.BulkRequest{Action: domain.BulkRequeue, IDs: make([]string, 0, 600)}
				for j := range 600 {
					req.IDs = append(req.IDs, fmt.Sprintf("job-%05d", (i*131+j)%n))
				}
			}
			res, err := q.BulkJobs(ctx, "race", req)
			if err != nil {
				t.Error(err)
				cancel()
				return
			}
			requeued.Add(res.Done)
		}
	})
	consumers.Wait()
	close(done)
	operator.Wait()
	if t.Failed() {
		return
	}
	if requeued.Load() < n {
		t.Fatalf("only %d requeues during %d deliveries: the race did not happen", requeued.Load(), deliveries.Load())
	}
	in := whereIs(t, q, "race")
	for i := range n {
		if id := fmt.Sprintf("job-%05d", i); in[id] != 1 {
			t.Errorf("%s is in %d sets", id, in[id])
		}
	}
	if len(in) != n {
		t.Errorf("%d jobs, want %d", len(in), n)
	}
}

// Bulk moves to the dead set racing 8 consumers that lease and ack: every job ends acked
// or dead, never both, never neither, and an ack fails only for a job the operator killed.
func TestBulkKillRacingAcks(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx := context.Background()
	const n = 3000
	fillQueue(t, rdb, "race", n)
	var mu sync.Mutex
	acked := map[string]bool{}
	// The bulk starts once consumers have acked some jobs, so both sides surely take part
	// whatever the scheduler does (on a busy machine the bulk could otherwise kill them all
	// before the first poll).
	started := make(chan struct{})
	var startOnce sync.Once
	var wg sync.WaitGroup
	for range concurrentConsumers {
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
				if err := q.Ack(ctx, "race", d.ID, d.Token); err == nil {
					mu.Lock()
					acked[d.ID] = true
					if len(acked) >= 50 {
						startOnce.Do(func() { close(started) })
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Go(func() {
		<-started
		for i := 0; i < 20; i++ {
			ids := make([]string, 0, 300)
			for j := range 300 {
				ids = append(ids, fmt.Sprintf("job-%05d", (i*150+j)%n))
			}
			if _, err := q.BulkJobs(ctx, "race", domain.BulkRequest{Action: domain.BulkKill, IDs: ids}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	in := whereIs(t, q, "race")
	dead := rdb.ZCard(ctx, store.DefaultKeys.QueueDead("race")).Val()
	if len(in) != int(dead) || dead == 0 || len(acked) == 0 {
		t.Fatalf("%d jobs left (%d dead), %d acked: the race did not happen, or jobs are left", len(in), dead, len(acked))
	}
	for i := range n {
		id := fmt.Sprintf("job-%05d", i)
		if acked[id] == (in[id] == 1) || in[id] > 1 {
			t.Errorf("%s: acked %v, in %d sets", id, acked[id], in[id])
		}
	}
}
