package history

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// lastBucket is the newest bucket of a history, failing the test when it was not recorded.
func lastBucket(t *testing.T, h domain.History) domain.HistoryBucket {
	t.Helper()
	b := h.Buckets[len(h.Buckets)-1]
	if !b.Recorded {
		t.Fatalf("%s %s %s: the newest bucket (%s) was not recorded", h.Kind, h.Name, h.Range, time.UnixMilli(b.AtMs).UTC())
	}
	return b
}

func readHistory(t *testing.T, svc *instance, kind domain.HistoryKind, name string, r domain.HistoryRange) domain.History {
	t.Helper()
	h, err := svc.History.Ring(context.Background(), kind, name, r)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHistorySurvivesRestartAndIsSharedByInstances records with one instance, then reads with
// it, with a second instance over the same Redis, and with a third opened after the first
// closed (a restart): all show the same buckets, including a queue no zpulse ever wrote to.
// On one Redis and on a Cluster, where every ring and script stays in its entity's slot.
func TestHistorySurvivesRestartAndIsSharedByInstances(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		clock := domain.NewManualClock(testNow.Add(time.Second)) // 12:00:01
		first := openInstance(t, rdb, clock)
		second := openInstance(t, rdb, clock)

		for _, id := range []string{"a", "b", "c"} {
			if _, err := first.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: id, HasPriority: true, Priority: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok, err := first.Queues.Poll(ctx, "mail", domain.PollOptions{Lease: 2 * time.Second}); err != nil || !ok {
			t.Fatalf("poll: ok %v, err %v", ok, err)
		}
		if _, ok, err := first.Queues.Poll(ctx, "mail", domain.PollOptions{}); err != nil || !ok { // completed at once
			t.Fatalf("poll: ok %v, err %v", ok, err)
		}
		// A queue only another service writes: its depth is sampled all the same.
		for i, id := range []string{"x1", "x2", "x3", "x4"} {
			rdb.ZAdd(ctx, "queue:ext", redis.Z{Score: float64(testNow.UnixMilli() + int64(i)), Member: id})
		}
		for range 2 {
			if _, err := first.Leaderboards.AddPoints(ctx, "game", "ann", 5); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			if _, err := first.Limiters.Allow(ctx, domain.DefaultLimiter, "c-1"); err != nil {
				t.Fatal(err)
			}
		}
		if err := first.Limiters.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(3 * time.Second) // 12:00:04: the lease ends, the reaper counts a failure
		if _, _, err := first.Queues.Reap(ctx, 1); err != nil {
			t.Fatal(err)
		}

		clock.Set(testNow.Add(10*time.Second + HistoryDelay)) // the bucket 12:00:00-12:00:10 ended
		if err := first.History.Record(ctx); err != nil {
			t.Fatal(err)
		}

		mail := lastBucket(t, readHistory(t, first, domain.HistoryQueue, "mail", domain.HistoryHour))
		// waiting (b back from its lease, c), scheduled, in flight, dead, enqueued, completed,
		// failed, and no lease-to-ack time (p50, p95, max)
		if want := []int64{2, 0, 0, 0, 3, 1, 1, 0, 0, 0}; !reflect.DeepEqual(mail.Values, want) || mail.AtMs != testNow.UnixMilli() {
			t.Errorf("mail's 10 s bucket at %d = %v, want %v at %d", mail.AtMs, mail.Values, want, testNow.UnixMilli())
		}
		if ext := lastBucket(t, readHistory(t, first, domain.HistoryQueue, "ext", domain.HistoryHour)); ext.Values[0] != 4 {
			t.Errorf("ext's sampled depth = %v, want waiting 4", ext.Values)
		}
		if game := lastBucket(t, readHistory(t, first, domain.HistoryBoard, "game", domain.HistoryHour)); !reflect.DeepEqual(game.Values, []int64{1, 2, 0, 0, 0}) {
			t.Errorf("game = %v, want 1 player, 2 adds, no period boards", game.Values)
		}
		if lim := lastBucket(t, readHistory(t, first, domain.HistoryLimiter, domain.DefaultLimiter, domain.HistoryHour)); !reflect.DeepEqual(lim.Values, []int64{3, 0}) {
			t.Errorf("default limiter = %v, want 3 allowed, 0 rejected", lim.Values)
		}

		// The next bucket, recorded by the other instance: the minute adds both up.
		clock.Set(testNow.Add(12 * time.Second))
		if _, err := second.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "d", HasPriority: true, Priority: 1}); err != nil {
			t.Fatal(err)
		}
		clock.Set(testNow.Add(20*time.Second + HistoryDelay))
		if err := second.History.Record(ctx); err != nil {
			t.Fatal(err)
		}
		hour := readHistory(t, second, domain.HistoryQueue, "mail", domain.HistoryHour)
		if n := len(hour.Buckets); n != 360 || hour.StepMs != 10_000 {
			t.Fatalf("1 h history: %d buckets of %d ms, want 360 of 10,000", n, hour.StepMs)
		}
		if prev := hour.Buckets[358]; !prev.Recorded || prev.Values[4] != 3 {
			t.Errorf("the first bucket, read by the second instance: %+v", prev)
		}
		if now := lastBucket(t, hour); now.Values[4] != 1 || now.Values[0] != 3 {
			t.Errorf("the second bucket: %v, want 1 enqueued, 3 waiting", now.Values)
		}
		day := readHistory(t, second, domain.HistoryQueue, "mail", domain.HistoryDay)
		if m := lastBucket(t, day); len(day.Buckets) != 1440 || m.AtMs != testNow.UnixMilli() || !reflect.DeepEqual(m.Values, []int64{3, 0, 0, 0, 4, 1, 1, 0, 0, 0}) {
			t.Errorf("the minute: %d buckets, last %+v; want 1,440, the last at 12:00 with 4 enqueued so far", len(day.Buckets), m)
		}

		// A restart: the first instance goes, a new one comes over the same Redis.
		first.Close()
		restarted := openInstance(t, rdb, clock)
		for _, kind := range []domain.HistoryKind{domain.HistoryQueue, domain.HistoryBoard, domain.HistoryLimiter} {
			name := map[domain.HistoryKind]string{domain.HistoryQueue: "mail", domain.HistoryBoard: "game", domain.HistoryLimiter: domain.DefaultLimiter}[kind]
			for _, r := range domain.HistoryRanges {
				a, b := readHistory(t, second, kind, name, r), readHistory(t, restarted, kind, name, r)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s %s %s differs between a running instance and a restarted one", kind, name, r)
				}
			}
		}
	})
}

// TestHistoryTotalsCountEachBucketOnce: a bucket recorded twice (two recorders in a handover,
// a restart) adds to the totals once, and the metrics read reports them.
func TestHistoryTotalsCountEachBucketOnce(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		clock := domain.NewManualClock(testNow.Add(time.Second))
		a, b := openInstance(t, rdb, clock), openInstance(t, rdb, clock)
		for _, id := range []string{"a", "b"} {
			if _, err := a.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: id, HasPriority: true, Priority: 0}); err != nil {
				t.Fatal(err)
			}
		}
		clock.Set(testNow.Add(10*time.Second + HistoryDelay))
		for _, svc := range []*instance{a, b, a} {
			if err := svc.History.Record(ctx); err != nil {
				t.Fatal(err)
			}
		}
		got, err := b.Business.Snapshot(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Queues) != 1 || got.Queues[0].Enqueued != 2 || got.Queues[0].Waiting != 2 {
			t.Fatalf("queues = %+v, want mail with 2 enqueued once and 2 waiting", got.Queues)
		}
		if got.Queues[0].OldestWaitingMs != 10_000 {
			t.Errorf("oldest waiting = %d ms, want 10,000 (enqueued at 12:00:01, now 12:00:11)", got.Queues[0].OldestWaitingMs)
		}
	})
}

// TestHistoryEmptyAndUnrecorded: an entity never recorded reads as a full range of
// unrecorded buckets ending at the last bucket that ended; bad names are EINVALID.
func TestHistoryEmptyAndUnrecorded(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow.Add(25 * time.Second))
	svc := openInstance(t, rdb, clock)
	h := readHistory(t, svc, domain.HistoryQueue, "nothing", domain.HistoryHour)
	last := h.Buckets[len(h.Buckets)-1]
	if last.Recorded || last.AtMs != testNow.Add(10*time.Second).UnixMilli() {
		t.Errorf("last bucket %+v, want unrecorded at 12:00:10", last)
	}
	if _, err := svc.History.Ring(context.Background(), domain.HistoryQueue, "", domain.HistoryHour); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("empty name: %v, want EINVALID", err)
	}
}

// TestHistoryRecorderRunsInOneInstance: two instances campaign for the recorder's singleton;
// one records, the other stands by.
func TestHistoryRecorderRunsInOneInstance(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan string, 2)
	done := make(chan struct{}, 2)
	tried := make(chan struct{})
	lock := store.DefaultKeys.SingletonLock(RecorderLoop)
	redistest.AfterScriptCalls(rdb, store.DefaultKeys.Lock(lock), 2, func() { close(tried) }) // both instances campaigned
	for _, name := range []string{"one", "two"} {
		svc := openInstance(t, rdb, nil)
		go func() {
			defer func() { done <- struct{}{} }()
			_ = svc.Singletons.Run(ctx, RecorderLoop, func(ctx context.Context, _ int64) error {
				started <- name
				return svc.History.RunRecorder(ctx, nil)
			})
		}()
	}
	<-started
	<-tried // the second campaign was refused; the next is a Retry (5 s) away
	if n, err := rdb.Exists(ctx, store.DefaultKeys.Lock(lock)).Result(); err != nil || n != 1 {
		t.Fatalf("the recorder's lock: exists %d, err %v", n, err)
	}
	select {
	case name := <-started:
		t.Fatalf("a second recorder started (%s) while the first holds the lock", name)
	default:
	}
	cancel()
	<-done
	<-done
}

// A nack is a failure in the history as a lease that ended is (the reaper's count).
func TestHistoryCountsNacksAsFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow.Add(time.Second))
	svc := openInstance(t, rdb, clock)
	if _, err := svc.Queues.Enqueue(ctx, "mail", domain.NewJob{ID: "a", HasPriority: true, Priority: 1}); err != nil {
		t.Fatal(err)
	}
	d, ok, err := svc.Queues.Poll(ctx, "mail", domain.PollOptions{Lease: 5 * time.Second})
	if err != nil || !ok {
		t.Fatalf("poll: ok %v, err %v", ok, err)
	}
	if _, err := svc.Queues.Nack(ctx, "mail", d.ID, d.Token, 0, "smtp timeout"); err != nil {
		t.Fatal(err)
	}
	clock.Set(testNow.Add(10*time.Second + HistoryDelay))
	if err := svc.History.Record(ctx); err != nil {
		t.Fatal(err)
	}
	// waiting (back after the nack), scheduled, in flight, dead, enqueued, completed, failed;
	// a nack is no lease-to-ack time
	if b := lastBucket(t, readHistory(t, svc, domain.HistoryQueue, "mail", domain.HistoryHour)); !reflect.DeepEqual(b.Values, []int64{1, 0, 0, 0, 1, 0, 1, 0, 0, 0}) {
		t.Errorf("after a nack: %v, want 1 waiting, 1 enqueued, 1 failed", b.Values)
	}
}
