package redisrepo

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Who works on what, live: the queue topic's one pipelined read lists under each consumer the
// jobs it holds (soonest deadline first, at most domain.ConsumerJobsShown, with the lease
// start, so how long each has been held) and its lease-to-ack times (summed per minute, so a
// mean per consumer); the read costs no more commands than before, and a consumer's row does
// not change while it holds the same jobs (the page counts the time held itself).
func TestSnapshotsQueueTopicShowsWhoHoldsWhat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow.Add(time.Second))
	svc := openTest(t, rdb, clock)
	q := svc.Queues
	for i := range 12 {
		if _, err := q.Enqueue(ctx, "work", domain.NewJob{ID: fmt.Sprintf("job-%02d", i), Priority: 1, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
	}
	poll := func(consumer string, lease time.Duration) domain.Delivery {
		t.Helper()
		d, ok, err := q.Poll(ctx, "work", domain.PollOptions{Lease: lease, Consumer: consumer})
		if err != nil || !ok {
			t.Fatalf("poll as %s: ok %v, err %v", consumer, ok, err)
		}
		return d
	}
	start := clock.Now().UnixMilli()
	a := poll("w1", time.Minute) // job-00, held from start
	clock.Advance(time.Second)
	b := poll("w1", 30*time.Second) // job-01: its deadline comes first
	c := poll("w2", time.Minute)    // job-02
	if ds, err := q.PollBatch(ctx, "work", 7, 2*time.Minute, "w3"); err != nil || len(ds) != 7 {
		t.Fatalf("w3's batch: %d, %v", len(ds), err)
	}
	topic := domain.QueueTopic("work")
	read := func() domain.QueueView {
		t.Helper()
		snaps, err := svc.Snapshots.Read(ctx, []string{topic}, live.Poll{})
		if err != nil {
			t.Fatal(err)
		}
		return snaps[topic].(domain.QueueView)
	}
	byName := func(cs []domain.Consumer) map[string]domain.Consumer {
		out := map[string]domain.Consumer{}
		for _, c := range cs {
			out[c.Name] = c
		}
		return out
	}
	read() // loads the scripts
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	v := read()
	if hook.Pipelines != 1 || hook.Single != 0 || hook.Commands > 10 {
		t.Errorf("the queue topic took %d pipelines, %d single calls, %d commands; want one pipeline of at most 10", hook.Pipelines, hook.Single, hook.Commands)
	}
	held := clock.Now().UnixMilli()
	got := byName(v.Consumers)
	if w1 := got["w1"].Jobs; !reflect.DeepEqual(w1, []domain.HeldJob{{ID: b.ID, SinceMs: held}, {ID: a.ID, SinceMs: start}}) {
		t.Errorf("w1 holds %+v, want %s (since %d, its deadline first) then %s (since %d)", w1, b.ID, held, a.ID, start)
	}
	if w2 := got["w2"].Jobs; !reflect.DeepEqual(w2, []domain.HeldJob{{ID: c.ID, SinceMs: held}}) {
		t.Errorf("w2 holds %+v, want %s", w2, c.ID)
	}
	if w3 := got["w3"]; w3.Leases != 7 || len(w3.Jobs) != domain.ConsumerJobsShown {
		t.Errorf("w3: %d leases, %d jobs listed; want 7 and the first %d", w3.Leases, len(w3.Jobs), domain.ConsumerJobsShown)
	}
	if _, ok := got["w1"].MeanAckMs(); ok {
		t.Errorf("w1 has a mean time to ack before any ack: %+v", got["w1"])
	}

	// Held for longer, nothing else changing: the view is the same (the page counts).
	clock.Advance(time.Second)
	if again := read(); !reflect.DeepEqual(again.Consumers, v.Consumers) {
		t.Errorf("the consumers changed while holding the same jobs:\n%+v\n%+v", v.Consumers, again.Consumers)
	}

	// w1 acks job-00 after 4 s and job-01 after 2 s (a mean of 3 s); w2 nacks its job, which
	// takes no time to ack.
	clock.Advance(time.Second) // start + 3 s
	if err := q.Ack(ctx, "work", b.ID, b.Token); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second) // start + 4 s
	if err := q.Ack(ctx, "work", a.ID, a.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Nack(ctx, "work", c.ID, c.Token, 0, "boom"); err != nil {
		t.Fatal(err)
	}
	got = byName(read().Consumers)
	if w1 := got["w1"]; len(w1.Jobs) != 0 || w1.Leases != 0 || w1.AckMsThisMinute != 6000 {
		t.Errorf("w1 after its acks: %+v, want no job held and 6000 ms of acks this minute", w1)
	} else if mean, ok := w1.MeanAckMs(); !ok || mean != 3000 {
		t.Errorf("w1's mean time to ack: %d %v, want 3000 ms", mean, ok)
	}
	if w2 := got["w2"]; len(w2.Jobs) != 0 || w2.NacksThisMinute != 1 || w2.AckMsThisMinute != 0 {
		t.Errorf("w2 after its nack: %+v, want no job, one nack, no ack time", w2)
	}
	// The service's read (GET /api/v1/queues/:queue/consumers) is the same read.
	cs, err := q.Consumers(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if w3 := byName(cs)["w3"]; len(w3.Jobs) != domain.ConsumerJobsShown {
		t.Errorf("the service's w3: %+v", w3)
	}

	// A minute later the acks are the last full minute's, and still make the mean.
	clock.Advance(time.Minute)
	if mean, ok := byName(read().Consumers)["w1"].MeanAckMs(); !ok || mean != 3000 {
		t.Errorf("w1's mean time to ack a minute later: %d %v, want 3000 ms", mean, ok)
	}
}
