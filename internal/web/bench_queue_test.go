package web

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// queueBenchClients is the concurrency of every side of the comparison, as redis-benchmark's -c 50.
const queueBenchClients = 50

// BenchmarkQueueEnqueueTake measures zpulse's queue (Queues, no HTTP) with 50 concurrent
// clients: enqueue (the enqueue script with its conflict check, payload and counters) and
// take (the poll script: ZPOPMIN plus payload and counters) and lease+ack (a poll with a
// lease, then its ack: what an asynq worker does for each task), then, on the same Redis in the
// same run, redis-benchmark's bare ZADD and ZPOPMIN with 50 clients, and hibiken/asynq's
// enqueue (Client.Enqueue) and dequeue (a Server of 50 workers taking and finishing tasks),
// and reports the rates and zpulse's ratio to each.
func BenchmarkQueueEnqueueTake(b *testing.B) {
	rdb := redistest.DB(b)
	q := openRepo(b, rdb).Queues
	ctx := context.Background()
	n := b.N

	enq := parallelRate(b, n, func(i int) error {
		_, err := q.Enqueue(ctx, "bench", domain.NewJob{ID: fmt.Sprint("j", i), Priority: i % 10, HasPriority: true})
		return err
	})
	take := parallelRate(b, n, func(int) error {
		_, ok, err := q.Poll(ctx, "bench", domain.PollOptions{})
		if err == nil && !ok {
			err = fmt.Errorf("the queue ran dry")
		}
		return err
	})
	// At-least-once, as asynq's workers run: a poll with a lease, then the ack with its token.
	for i := range n {
		if _, err := q.Enqueue(ctx, "bench-lease", domain.NewJob{ID: fmt.Sprint("l", i), Priority: i % 10, HasPriority: true}); err != nil {
			b.Fatal(err)
		}
	}
	leaseAck := parallelRate(b, n, func(int) error {
		d, ok, err := q.Poll(ctx, "bench-lease", domain.PollOptions{Lease: time.Minute})
		if err == nil && !ok {
			err = fmt.Errorf("the queue ran dry")
		}
		if err != nil {
			return err
		}
		return q.Ack(ctx, "bench-lease", d.ID, d.Token)
	})
	b.StopTimer()
	b.ReportMetric(enq, "enqueue/s")
	b.ReportMetric(take, "take/s")
	b.ReportMetric(leaseAck, "lease+ack/s")
	if n < 1000 {
		return // the sizing round: the yardsticks run in the measured one only (go prints its figures)
	}
	rbZadd := redisBenchmark(b, "-r", "1000000", "ZADD", "queue:rb", "__rand_int__", "job:__rand_int__")
	rbZpop := redisBenchmark(b, "ZPOPMIN", "queue:rb")
	aEnq, aDeq := asynqRates(b, rdb, n)

	b.ReportMetric(rbZadd, "redis-benchmark-zadd/s")
	b.ReportMetric(rbZpop, "redis-benchmark-zpopmin/s")
	b.ReportMetric(enq/rbZadd, "enqueue/zadd")
	b.ReportMetric(take/rbZpop, "take/zpopmin")
	b.ReportMetric(aEnq, "asynq-enqueue/s")
	b.ReportMetric(aDeq, "asynq-dequeue/s")
	b.ReportMetric(enq/aEnq, "enqueue/asynq")
	b.ReportMetric(take/aDeq, "take/asynq")
	b.ReportMetric(leaseAck/aDeq, "lease+ack/asynq")
}

// parallelRate runs op n times over queueBenchClients goroutines and returns ops per second.
func parallelRate(b *testing.B, n int, op func(i int) error) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range queueBenchClients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// asynqRates enqueues n tasks with asynq's client (50 goroutines), then times an asynq
// server with 50 workers taking all of them; used here only, as the yardstick.
func asynqRates(b *testing.B, rdb *redis.Client, n int) (enqueue, dequeue float64) {
	opt := asynq.RedisClientOpt{Addr: rdb.Options().Addr}
	client := asynq.NewClient(opt)
	defer client.Close()
	enqueue = parallelRate(b, n, func(i int) error {
		_, err := client.Enqueue(asynq.NewTask("bench", nil), asynq.Queue("bench"), asynq.MaxRetry(0))
		return err
	})
	var done atomic.Int64
	all := make(chan struct{})
	srv := asynq.NewServer(opt, asynq.Config{Concurrency: queueBenchClients, Queues: map[string]int{"bench": 1}, LogLevel: asynq.ErrorLevel})
	start := time.Now()
	if err := srv.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
		if done.Add(1) == int64(n) {
			close(all)
		}
		return nil
	})); err != nil {
		b.Fatal(err)
	}
	select {
	case <-all:
	case <-time.After(2 * time.Minute):
		b.Fatalf("asynq processed %d of %d tasks in 2 minutes", done.Load(), n)
	}
	dequeue = float64(n) / time.Since(start).Seconds()
	srv.Shutdown()
	return enqueue, dequeue
}
