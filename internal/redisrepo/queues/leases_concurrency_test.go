package queues

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Many consumers with leases; a quarter of the deliveries are held past their lease and acked
// late, while the same jobs are delivered again and acked by others. Every late ack is
// refused, and every job is completed exactly once (one ack succeeds per job).
func TestConcurrentLateAcksCompleteOnce(t *testing.T) {
	t.Parallel()
	const jobs, consumers = 2_000, 8
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	if _, err := q.UpdateSettings(ctx, "bulk", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: domain.MaxMaxAttempts}); err != nil {
		t.Fatal(err)
	}
	fillQueue(t, rdb, "bulk", jobs)
	var (
		mu        sync.Mutex
		completed = map[string]int{}
		held      []domain.Delivery // leases the consumers of this round keep past their end
		refused   int
	)
	lateAck := func(d domain.Delivery) {
		err := q.Ack(ctx, "bulk", d.ID, d.Token)
		mu.Lock()
		defer mu.Unlock()
		switch domain.ErrorCode(err) {
		case domain.ECONFLICT:
			refused++
		case "":
			completed[d.ID]++ // wrong: a lease that ended completed the job
		default:
			t.Errorf("late ack of %s: %v", d.ID, err)
		}
	}
	consumer := func() {
		for {
			d, ok, err := q.Poll(ctx, "bulk", domain.PollOptions{Lease: 10 * time.Second})
			if err != nil || !ok {
				if err != nil {
					t.Error(err)
				}
				return
			}
			if rand.IntN(4) == 0 {
				mu.Lock()
				held = append(held, d)
				mu.Unlock()
				continue
			}
			if err := q.Ack(ctx, "bulk", d.ID, d.Token); err != nil {
				t.Errorf("ack of %s in its lease: %v", d.ID, err)
				return
			}
			mu.Lock()
			completed[d.ID]++
			mu.Unlock()
		}
	}
	var late []domain.Delivery // the leases held in the last round, ended since
	for round := 0; ; round++ {
		if round > 100 || t.Failed() {
			t.Fatalf("round %d: giving up", round)
		}
		var wg sync.WaitGroup
		for range consumers {
			wg.Go(consumer)
		}
		for _, d := range late { // the late acks race the redeliveries of their jobs
			wg.Go(func() { lateAck(d) })
		}
		wg.Wait()
		late, held = held, nil
		if len(late) == 0 {
			break
		}
		clock.Advance(10 * time.Second) // every held lease ends
		if r, died, err := q.Reap(ctx, 1); err != nil || died != 0 || r != int64(len(late)) {
			t.Fatalf("reap = %d back, %d dead, %v; want the %d held jobs back", r, died, err, len(late))
		}
	}
	if refused == 0 {
		t.Fatal("no late ack happened: the test proved nothing")
	}
	for i := range jobs {
		if id := fmt.Sprintf("job-%05d", i); completed[id] != 1 {
			t.Errorf("%s completed %d times, want exactly once", id, completed[id])
		}
	}
	if n := rdb.Exists(ctx, "queue:bulk", "{queue:bulk}:processing", "{queue:bulk}:leases", "{queue:bulk}:jobs").Val(); n != 0 {
		t.Errorf("%d queue keys left after every job completed", n)
	}
	t.Logf("%d late acks refused; every job completed once", refused)
}
