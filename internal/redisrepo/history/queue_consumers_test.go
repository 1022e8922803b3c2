package history

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Who consumes a queue and how long its jobs take: each poll with a lease records
// its consumer (a name, or an address) even when it gets nothing; leases are counted by
// consumer; acks and nacks per minute go to the lease's consumer; the lease-to-ack time lands
// in the history (p50, p95, max) and in the totals /metrics reads; a nacked attempt keeps its
// duration and a job in flight shows when its attempt began; a consumer silent for
// domain.ConsumerTTL is forgotten. On one Redis and on a Cluster (one slot per queue).
func TestConsumersAndDurations(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		clock := domain.NewManualClock(testNow.Add(time.Second)) // 12:00:01
		svc := openInstance(t, rdb, clock)
		q := svc.Queues
		for _, id := range []string{"a", "b", "c", "d"} {
			if _, err := q.Enqueue(ctx, "mail", domain.NewJob{ID: id, HasPriority: true, Priority: 1}); err != nil {
				t.Fatal(err)
			}
		}
		addr := domain.ConsumerID("", "10.0.0.7")
		lease := func(consumer string) domain.Delivery {
			t.Helper()
			d, ok, err := q.Poll(ctx, "mail", domain.PollOptions{Lease: time.Minute, Consumer: consumer})
			if err != nil || !ok {
				t.Fatalf("poll: ok %v, err %v", ok, err)
			}
			return d
		}
		a := lease("w1")
		b := lease(addr)
		if ds, err := q.PollBatch(ctx, "mail", 2, time.Minute, "w1"); err != nil || len(ds) != 2 {
			t.Fatalf("poll batch: %d, %v", len(ds), err)
		}
		if _, ok, err := q.Poll(ctx, "mail", domain.PollOptions{Lease: time.Minute, Consumer: "w2"}); err != nil || ok {
			t.Fatalf("poll of an empty queue: ok %v, err %v", ok, err)
		}
		consumers := func() map[string]domain.Consumer {
			t.Helper()
			cs, err := q.Consumers(ctx, "mail")
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]domain.Consumer{}
			for _, c := range cs {
				out[c.Name] = c
			}
			return out
		}
		polledAt := clock.Now().UnixMilli()
		got := consumers()
		want := map[string]domain.Consumer{
			"w2": {Name: "w2", LastPollMs: polledAt},
			"w1": {Name: "w1", LastPollMs: polledAt, Leases: 3,
				Jobs: []domain.HeldJob{{ID: "a", SinceMs: polledAt}, {ID: "c", SinceMs: polledAt}, {ID: "d", SinceMs: polledAt}}},
			"10.0.0.7": {Name: "10.0.0.7", Address: true, LastPollMs: polledAt, Leases: 1, Jobs: []domain.HeldJob{{ID: "b", SinceMs: polledAt}}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("consumers after the polls:\n got %+v\nwant %+v", got, want)
		}

		clock.Advance(2500 * time.Millisecond) // 12:00:03.5
		if err := q.Ack(ctx, "mail", a.ID, a.Token); err != nil {
			t.Fatal(err)
		}
		if err := q.Ack(ctx, "mail", a.ID, a.Token); err != nil { // a retried ack is not counted twice
			t.Fatal(err)
		}
		if _, err := q.Nack(ctx, "mail", b.ID, b.Token, 0, "smtp timeout"); err != nil {
			t.Fatal(err)
		}
		got = consumers()
		if w1 := got["w1"]; w1.Leases != 2 || w1.AcksThisMinute != 1 || w1.NacksThisMinute != 0 {
			t.Errorf("w1 after its ack: %+v, want 2 leases and 1 ack this minute", w1)
		}
		if ad := got["10.0.0.7"]; ad.Leases != 0 || ad.NacksThisMinute != 1 || ad.AcksThisMinute != 0 {
			t.Errorf("the address after its nack: %+v, want no lease and 1 nack this minute", ad)
		}
		job, err := q.Job(ctx, "mail", "b")
		if err != nil {
			t.Fatal(err)
		}
		if len(job.Errors) != 1 || job.Errors[0].DurationMs == nil || *job.Errors[0].DurationMs != 2500 {
			t.Errorf("the nacked attempt: %+v, want its duration, 2500 ms", job.Errors)
		}
		if job, err := q.Job(ctx, "mail", "c"); err != nil || job.LeasedAt == nil || !job.LeasedAt.Equal(time.UnixMilli(polledAt)) {
			t.Errorf("a job in flight: leased at %v (err %v), want %v", job.LeasedAt, err, time.UnixMilli(polledAt).UTC())
		}

		// The bucket 12:00:00-12:00:10 holds one lease-to-ack time of 2.5 s: in the
		// (1 s, 2.5 s] bucket, so p50 and p95 are read within it, and the max exactly.
		clock.Set(testNow.Add(10*time.Second + HistoryDelay))
		if err := svc.History.Record(ctx); err != nil {
			t.Fatal(err)
		}
		for _, r := range domain.HistoryRanges {
			if v := lastBucket(t, readHistory(t, svc, domain.HistoryQueue, "mail", r)).Values; !reflect.DeepEqual(v[7:], []int64{1750, 2425, 2500}) {
				t.Errorf("%s: lease-to-ack p50, p95, max = %v, want [1750 2425 2500]", r, v[7:])
			}
		}
		m, err := svc.Business.Snapshot(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Queues) != 1 || m.Queues[0].Durations.Count() != 1 || m.Queues[0].Durations.SumMs != 2500 ||
			m.Queues[0].Durations.Counts[domain.DurationBucket(2500)] != 1 {
			t.Errorf("the totals for /metrics: %+v, want one time of 2500 ms", m.Queues)
		}

		clock.Set(testNow.Add(time.Minute + 5*time.Second)) // the next minute
		if w1 := consumers()["w1"]; w1.AcksLastMinute != 1 || w1.AcksThisMinute != 0 {
			t.Errorf("w1 a minute later: %+v, want 1 ack in the last minute, none in this one", w1)
		}
		clock.Set(time.UnixMilli(polledAt).Add(domain.ConsumerTTL))
		if got := consumers(); len(got) != 0 {
			t.Errorf("consumers silent for %s are still listed: %+v", domain.ConsumerTTL, got)
		}
	})
}

// The quantiles are read from the buckets: exact to within the bucket, never above the max.
func TestDurationQuantiles(t *testing.T) {
	t.Parallel()
	h := domain.DurationHistogram{Counts: make([]int64, len(domain.DurationBoundsMs)+1), MaxMs: 70}
	h.Counts[domain.DurationBucket(8)] = 90  // (0, 10]
	h.Counts[domain.DurationBucket(70)] = 10 // (50, 100]
	if p50, p95, top := h.Quantile(0.5), h.Quantile(0.95), h.Quantile(1); p50 != 6 || p95 != 60 || top != 70 {
		t.Errorf("p50 %d, p95 %d, p100 %d; want 6 (within (0, 10]), 60 (within (50, 70]) and the max, 70", p50, p95, top)
	}
	if (domain.DurationHistogram{}).Quantile(0.5) != 0 {
		t.Error("an empty histogram's quantile is not 0")
	}
}
