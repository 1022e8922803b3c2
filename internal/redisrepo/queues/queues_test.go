package queues

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

func prio(p int) domain.NewJob { return domain.NewJob{Priority: p, HasPriority: true} }

func enqueue(t testing.TB, q *Queues, queue, id string, p int) domain.Enqueued {
	t.Helper()
	job := prio(p)
	job.ID = id
	e, err := q.Enqueue(context.Background(), queue, job)
	if err != nil {
		t.Fatalf("Enqueue(%s, %s, %d): %v", queue, id, p, err)
	}
	return e
}

func poll(t testing.TB, q *Queues, queue string, opt domain.PollOptions) (domain.Delivery, bool) {
	t.Helper()
	d, ok, err := q.Poll(context.Background(), queue, opt)
	if err != nil {
		t.Fatalf("Poll(%s): %v", queue, err)
	}
	return d, ok
}

// The article's test: newsletter at 5, password-reset at 0; poll gives password-reset, then
// newsletter, then nothing.
func TestQueueArticleTest(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	enqueue(t, q, "email-jobs", "newsletter", 5)
	clock.Advance(time.Millisecond)
	e := enqueue(t, q, "email-jobs", "password-reset", 0)
	if want := float64(testNow.UnixMilli() + 1); e.Score != want || *e.Priority != 0 || e.Kind != domain.PriorityQueue {
		t.Errorf("Enqueue(password-reset, 0) = %+v, want score %v (0*1e13 + ms), priority 0", e, want)
	}
	if s := rdb.ZScore(context.Background(), "queue:email-jobs", "newsletter").Val(); s != 5e13+float64(testNow.UnixMilli()) {
		t.Errorf("ZSCORE queue:email-jobs newsletter = %v, want 5*1e13 + enqueue ms", s)
	}
	for _, want := range []string{"password-reset", "newsletter"} {
		if d, ok := poll(t, q, "email-jobs", domain.PollOptions{}); !ok || d.ID != want {
			t.Fatalf("poll = %+v, %v; want %s", d, ok, want)
		}
	}
	if d, ok := poll(t, q, "email-jobs", domain.PollOptions{}); ok {
		t.Errorf("poll of an empty queue = %+v, want nothing", d)
	}
}

func TestEnqueueValidation(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx := context.Background()
	for _, c := range []struct {
		queue string
		job   domain.NewJob
		want  string
	}{
		{"email-jobs", prio(10), "from 0 (first) to 9"},
		{"email-jobs", prio(-1), "from 0 (first) to 9"},
		{"email-jobs", domain.NewJob{}, "priority is required"},
		{"email-jobs", domain.NewJob{Delay: time.Second}, "is a priority queue"},
		{"delayed", prio(3), "is a delayed queue"},
		{"delayed", domain.NewJob{Delay: -time.Second}, "delay_ms must be"},
		{"delayed", domain.NewJob{RunAt: testNow.Add(400 * 24 * time.Hour)}, "run_at must be"},
		{"delayed", domain.NewJob{RunAt: testNow, Delay: time.Second}, "not both"},
		{"email-jobs", domain.NewJob{ID: strings.Repeat("x", 65), HasPriority: true}, "64 bytes"},
		{"email-jobs", domain.NewJob{HasPriority: true, Payload: []byte(`{"a":`)}, "valid JSON"},
		{"email-jobs", domain.NewJob{HasPriority: true, Payload: []byte(`"` + strings.Repeat("x", 64<<10) + `"`)}, "64 KiB"},
		{"bad name", prio(1), "queue name"},
	} {
		t.Run(c.want, func(t *testing.T) {
			_, err := q.Enqueue(ctx, c.queue, c.job)
			if domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), c.want) {
				t.Errorf("Enqueue(%s, %+v) = %v, want EINVALID saying %q", c.queue, c.job, err, c.want)
			}
		})
	}
	if n := rdb.Exists(ctx, "queue:email-jobs", "queue:delayed").Val(); n != 0 {
		t.Errorf("refused enqueues wrote %d queues", n)
	}
	// The largest payload allowed is accepted.
	job := domain.NewJob{HasPriority: true, Payload: []byte(`"` + strings.Repeat("x", 64<<10-2) + `"`)}
	if _, err := q.Enqueue(ctx, "email-jobs", job); err != nil {
		t.Errorf("a 64 KiB payload: %v", err)
	}
}

// An id that is already waiting is a conflict and does not move the waiting job.
func TestEnqueueDuplicateDoesNotMove(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	first := enqueue(t, q, "email-jobs", "newsletter", 5)
	clock.Advance(time.Minute)
	_, err := q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "newsletter", Priority: 0, HasPriority: true})
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "already waiting") {
		t.Errorf("second enqueue = %v, want ECONFLICT 'already waiting'", err)
	}
	if s := rdb.ZScore(ctx, "queue:email-jobs", "newsletter").Val(); s != first.Score {
		t.Errorf("score after the refused enqueue = %v, want %v (unchanged)", s, first.Score)
	}
	// In flight, then dead: still conflicts.
	if _, ok := poll(t, q, "email-jobs", domain.PollOptions{Lease: time.Minute}); !ok {
		t.Fatal("no job to lease")
	}
	if _, err := q.Enqueue(ctx, "email-jobs", domain.NewJob{ID: "newsletter", HasPriority: true}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("enqueue of an id in flight = %v, want ECONFLICT", err)
	}
}

// Both directions with the article's raw commands: a consumer doing ZPOPMIN takes what zpulse
// enqueued, in order; the article's POP_DUE (its own text here) takes zpulse's delayed jobs;
// and what the article's producers add shows in zpulse and is polled by it in order.
func TestQueueCompatibilityWithArticle(t *testing.T) {
	t.Parallel()
	q, rdb, clock := newTestQueues(t)
	ctx := context.Background()
	enqueue(t, q, "email-jobs", "newsletter", 5)
	clock.Advance(time.Millisecond)
	enqueue(t, q, "email-jobs", "digest", 5)
	clock.Advance(time.Millisecond)
	enqueue(t, q, "email-jobs", "password-reset", 0)
	var got []string
	for {
		zs := rdb.ZPopMin(ctx, "queue:email-jobs").Val()
		if len(zs) == 0 {
			break
		}
		got = append(got, zs[0].Member.(string))
	}
	if strings.Join(got, ",") != "password-reset,newsletter,digest" {
		t.Errorf("raw ZPOPMIN took %v, want password-reset, newsletter, digest", got)
	}

	articlePopDue := redis.NewScript(`
            local jobs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
            if #jobs == 0 then return false end
            redis.call('ZREM', KEYS[1], jobs[1])
            return jobs[1]
            `)
	clock.Set(testNow)
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "reminder", Delay: 30 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "now", RunAt: testNow}); err != nil {
		t.Fatal(err)
	}
	pop := func(at time.Time) string {
		v, err := articlePopDue.Run(ctx, rdb, []string{"queue:delayed"}, at.UnixMilli()).Text()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		return v
	}
	if a, b, c := pop(testNow), pop(testNow.Add(29*time.Minute)), pop(testNow.Add(30*time.Minute)); a != "now" || b != "" || c != "reminder" {
		t.Errorf("article POP_DUE at 0, 29, 30 min = %q %q %q; want now, nothing, reminder", a, b, c)
	}

	// The article's producers: JobQueue.enqueue and DelayedJobQueue.schedule.
	ms := float64(testNow.UnixMilli())
	rdb.ZAdd(ctx, "queue:email-jobs", redis.Z{Score: 5*1e13 + ms, Member: "java-newsletter"}, redis.Z{Score: 0*1e13 + ms + 1, Member: "java-reset"})
	rdb.ZAdd(ctx, "queue:delayed", redis.Z{Score: ms + 60_000, Member: "java-reminder"})
	st, err := q.Stats(ctx, "email-jobs")
	if err != nil || st.Total != 2 || st.ByPriority["5"] != 1 || st.ByPriority["0"] != 1 || st.Kind != domain.PriorityQueue {
		t.Errorf("Stats(email-jobs) = %+v, %v; want 2 jobs, one at 0 and one at 5", st, err)
	}
	st, err = q.Stats(ctx, "delayed")
	if err != nil || st.Total != 1 || st.Scheduled != 1 || st.Due != 0 || len(st.NextDue) != 1 || st.NextDue[0].ID != "java-reminder" {
		t.Errorf("Stats(delayed) = %+v, %v; want java-reminder scheduled", st, err)
	}
	if d, _ := poll(t, q, "email-jobs", domain.PollOptions{}); d.ID != "java-reset" || d.Priority == nil || *d.Priority != 0 {
		t.Errorf("poll = %+v, want java-reset at priority 0", d)
	}
	if d, _ := poll(t, q, "email-jobs", domain.PollOptions{}); d.ID != "java-newsletter" {
		t.Errorf("poll = %+v, want java-newsletter", d)
	}
	if _, ok := poll(t, q, "delayed", domain.PollOptions{}); ok {
		t.Errorf("java-reminder was delivered a minute early")
	}
	clock.Advance(time.Minute)
	if d, _ := poll(t, q, "delayed", domain.PollOptions{}); d.ID != "java-reminder" {
		t.Errorf("poll of delayed at its run-at = %+v, want java-reminder", d)
	}
}

// Delayed jobs are never delivered before they are due, by a poll, a leased poll or the
// worker loop (injected clock).
func TestDelayedNeverEarly(t *testing.T) {
	t.Parallel()
	q, _, clock := newTestQueues(t)
	ctx := context.Background()
	runAt := testNow.Add(30 * time.Second)
	e, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "reminder", RunAt: runAt, Payload: json.RawMessage(`{"invoice":42}`)})
	if err != nil || e.Score != float64(runAt.UnixMilli()) || e.RunAt == nil || !e.RunAt.Equal(runAt) {
		t.Fatalf("Enqueue = %+v, %v; want score = run-at ms", e, err)
	}
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "later", Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{0, 29 * time.Second, 29*time.Second + 999*time.Millisecond} {
		clock.Set(testNow.Add(at))
		for _, opt := range []domain.PollOptions{{}, {Lease: time.Minute}} {
			if d, ok := poll(t, q, "delayed", opt); ok {
				t.Fatalf("at +%v a poll %+v got %+v before its run-at", at, opt, d)
			}
		}
		n, err := domain.DrainDue(ctx, q, "delayed", 0, func(context.Context, domain.Delivery) error { return nil })
		if n != 0 || err != nil {
			t.Fatalf("at +%v the worker drained %d, %v; want nothing", at, n, err)
		}
	}
	clock.Set(runAt)
	var got []domain.Delivery
	n, err := domain.DrainDue(ctx, q, "delayed", time.Minute, func(_ context.Context, d domain.Delivery) error {
		got = append(got, d)
		return nil
	})
	if n != 1 || err != nil || got[0].ID != "reminder" || string(got[0].Payload) != `{"invoice":42}` || got[0].Attempt != 1 {
		t.Fatalf("worker at the run-at drained %d, %+v, %v; want reminder with its payload", n, got, err)
	}
	st, _ := q.Stats(ctx, "delayed")
	if st.Processing != 0 || st.Total != 1 || st.Scheduled != 1 {
		t.Errorf("after the worker acked: %+v; want later scheduled, nothing in flight", st)
	}
}

// A leased job sits in {queue:x}:processing with its deadline; ack ends it with its payload;
// a job not acked goes back to its place after its lease, then dies after max attempts and can
// be requeued. On one server and on the Cluster.
func TestLeaseAckReapDead(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testLeaseAckReapDead)
}

func testLeaseAckReapDead(t *testing.T, rdb redis.UniversalClient) {
	q, clock := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	if _, err := q.UpdateSettings(ctx, "email-jobs", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 2}); err != nil {
		t.Fatal(err)
	}
	job := prio(3)
	job.ID, job.Payload = "invoice", json.RawMessage(`{"n":1}`)
	e, err := q.Enqueue(ctx, "email-jobs", job)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, q, "email-jobs", "acked", 1)

	d, _ := poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
	if d.ID != "acked" || d.Attempt != 1 || d.LeaseDeadline == nil || !d.LeaseDeadline.Equal(testNow.Add(10*time.Second)) {
		t.Fatalf("leased poll = %+v; want acked with a deadline 10 s from now", d)
	}
	if s := rdb.ZScore(ctx, "{queue:email-jobs}:processing", "acked").Val(); s != float64(testNow.Add(10*time.Second).UnixMilli()) {
		t.Errorf("ZSCORE {queue:email-jobs}:processing acked = %v, want the deadline", s)
	}
	if err := q.Ack(ctx, "email-jobs", "acked", d.Token); err != nil {
		t.Fatal(err)
	}
	if err := q.Ack(ctx, "email-jobs", "acked", d.Token); err != nil {
		t.Errorf("the same ack again (a retry) = %v, want nil", err)
	}
	if err := q.Ack(ctx, "email-jobs", "acked", "another-token"); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("ack of a completed job with another token = %v, want ECONFLICT", err)
	}
	if err := q.Ack(ctx, "email-jobs", "never-leased", d.Token); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("ack of a job never leased = %v, want ENOTFOUND", err)
	}

	for attempt := 1; attempt <= 2; attempt++ {
		d, _ = poll(t, q, "email-jobs", domain.PollOptions{Lease: 10 * time.Second})
		if d.ID != "invoice" || d.Attempt != attempt || string(d.Payload) != `{"n":1}` {
			t.Fatalf("lease %d = %+v; want invoice, attempt %d, with its payload", attempt, d, attempt)
		}
		clock.Advance(9 * time.Second)
		if r, died, _ := q.Reap(ctx, 1); r+died != 0 {
			t.Fatalf("reap before the deadline moved %d jobs", r+died)
		}
		clock.Advance(time.Second)
		r, died, err := q.Reap(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if attempt == 1 {
			if r != 1 || died != 0 || rdb.ZScore(ctx, "queue:email-jobs", "invoice").Val() != e.Score {
				t.Fatalf("reap = %d back, %d dead; want the job back with its score %v", r, died, e.Score)
			}
		} else if r != 0 || died != 1 {
			t.Fatalf("reap after attempt 2 = %d back, %d dead; want it dead", r, died)
		}
	}
	v, err := q.View(ctx, "email-jobs")
	if err != nil || v.Dead != 1 || len(v.DeadJobs) != 1 || v.DeadJobs[0].ID != "invoice" || v.DeadJobs[0].Attempts != 2 || v.Waiting != 0 {
		t.Fatalf("view = %+v, %v; want invoice dead after 2 attempts", v, err)
	}
	if err := q.Requeue(ctx, "email-jobs", "invoice"); err != nil {
		t.Fatal(err)
	}
	if s := rdb.ZScore(ctx, "queue:email-jobs", "invoice").Val(); s != 3e13+float64(clock.Now().UnixMilli()) {
		t.Errorf("requeued score = %v, want priority 3 at now", s)
	}
	d, _ = poll(t, q, "email-jobs", domain.PollOptions{Lease: time.Second})
	if d.Attempt != 1 || string(d.Payload) != `{"n":1}` {
		t.Errorf("after requeue: %+v; want attempt 1 again, payload kept", d)
	}
	if where, err := q.Delete(ctx, "email-jobs", "invoice"); err != nil || where != domain.InFlight {
		t.Errorf("Delete = %q, %v; want it deleted from processing", where, err)
	}
	if n := rdb.Exists(ctx, "{queue:email-jobs}:jobs", "{queue:email-jobs}:attempts", "{queue:email-jobs}:scores", "{queue:email-jobs}:processing").Val(); n != 0 {
		t.Errorf("%d bookkeeping keys left after ack and delete", n)
	}
	if err := q.Requeue(ctx, "email-jobs", "invoice"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("Requeue of a job not dead = %v, want ENOTFOUND", err)
	}
}

// The reap script checks the reaper's fencing token: a reaper whose term ended (a lower fence
// than one the queue has seen) changes nothing, and a newer one reaps. On one server and on
// the Cluster, with queues on every master.
func TestReapRefusesAStaleFence(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		q, clock := newTestQueuesOn(t, rdb)
		ctx := context.Background()
		qs := []string{"mail", "sms", "push", "fax", "pager", "telex"} // spread over the masters
		for _, name := range qs {
			enqueue(t, q, name, "j", 1)
			poll(t, q, name, domain.PollOptions{Lease: time.Second})
		}
		if _, _, err := q.Reap(ctx, 1_000); err != nil {
			t.Fatalf("reap with fence 1000: %v", err)
		}
		clock.Advance(2 * time.Second) // every lease ended
		if r, d, err := q.Reap(ctx, 999); domain.ErrorCode(err) != domain.ECONFLICT || r+d != 0 {
			t.Fatalf("reap with a stale fence = %d back, %d dead, %v; want ECONFLICT and nothing moved", r, d, err)
		}
		for _, name := range qs {
			if n := rdb.ZCard(ctx, "{queue:"+name+"}:processing").Val(); n != 1 {
				t.Fatalf("queue %s: %d in flight after the stale reap, want 1", name, n)
			}
		}
		if r, _, err := q.Reap(ctx, 1_001); err != nil || r != int64(len(qs)) {
			t.Fatalf("reap with a newer fence = %d back, %v; want %d", r, err, len(qs))
		}
	})
}

// The kind of a queue is stored in Redis; "delayed" is delayed out of the box, and a kind
// cannot change under jobs.
func TestQueueSettings(t *testing.T) {
	t.Parallel()
	q, _, _ := newTestQueues(t)
	ctx := context.Background()
	if s, _ := q.Settings(ctx, "delayed"); s.Kind != domain.DelayedQueue {
		t.Errorf("delayed's default kind = %q", s.Kind)
	}
	if s, _ := q.Settings(ctx, "reminders"); s.Kind != domain.PriorityQueue || s.MaxAttempts != domain.DefaultMaxAttempts {
		t.Errorf("reminders' default settings = %+v", s)
	}
	if _, err := q.UpdateSettings(ctx, "reminders", domain.QueueSettings{Kind: "fifo", MaxAttempts: 3}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("kind fifo = %v, want EINVALID", err)
	}
	if _, err := q.UpdateSettings(ctx, "reminders", domain.QueueSettings{Kind: domain.DelayedQueue, MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	// Another instance (a fresh Queues) sees it at once: enqueue reads the kind in its script.
	other, _ := openQueues(t, q.Rdb, q.Clock, 4)
	if e, err := other.Enqueue(ctx, "reminders", domain.NewJob{ID: "r", Delay: time.Minute}); err != nil || e.Kind != domain.DelayedQueue {
		t.Errorf("enqueue on the reconfigured queue = %+v, %v", e, err)
	}
	if _, err := q.UpdateSettings(ctx, "reminders", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 3}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("kind change under a job = %v, want ECONFLICT", err)
	}
}

// Queues other services write (queue:*) are discovered; the index lists zpulse's own.
func TestQueueDiscovery(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx := context.Background()
	rdb.ZAdd(ctx, "queue:java-jobs", redis.Z{Score: 1, Member: "a"})
	rdb.ZAdd(ctx, "{queue:java-jobs}:processing", redis.Z{Score: 1, Member: "b"})
	rdb.Set(ctx, "queue:not-a-zset", "x", 0)
	enqueue(t, q, "email-jobs", "a", 1)
	names, err := q.Queues(ctx)
	if err != nil || strings.Join(names, ",") != "email-jobs,java-jobs" {
		t.Errorf("Queues = %v, %v; want email-jobs, java-jobs", names, err)
	}
}

// Saving settings answers what was saved, also when Redis does not know the script yet (a
// restart, a SCRIPT FLUSH, a Cluster node that never ran it): the answer used to be read
// beside the script in the pipeline, and so before the resent script ran.
func TestQueueSettingsAnswerWhatWasSavedAfterAScriptFlush(t *testing.T) {
	// Serial: SCRIPT FLUSH empties the whole server's script cache, under every other test.
	redistest.ForEachTopology(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		q, _ := newTestQueuesOn(t, rdb)
		flush := func(ctx context.Context, c redis.UniversalClient) error { return c.ScriptFlush(ctx).Err() }
		var err error
		if c, ok := rdb.(*redis.ClusterClient); ok {
			err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return flush(ctx, m) })
		} else {
			err = flush(ctx, rdb)
		}
		if err != nil {
			t.Fatal(err)
		}
		s, err := q.UpdateSettings(ctx, "mail", domain.QueueSettings{Kind: domain.DelayedQueue, MaxAttempts: 2})
		if err != nil || s.Kind != domain.DelayedQueue || s.MaxAttempts != 2 {
			t.Errorf("UpdateSettings after SCRIPT FLUSH answered %+v, %v; want delayed, 2 attempts", s, err)
		}
	})
}

// A queue that does not exist yet is its empty view with the default settings, and the view
// says where the payloads live, so the page never spells a key.
func TestQueueViewOfANewQueue(t *testing.T) {
	t.Parallel()
	q, _, _ := newTestQueues(t)
	v, err := q.View(context.Background(), "email-jobs")
	if err != nil {
		t.Fatal(err)
	}
	if v.Queue != "email-jobs" || v.Settings != domain.DefaultQueueSettings("email-jobs") || v.Waiting != 0 || v.OldestAtMs != -1 ||
		len(v.Enqueued) != domain.ThroughputSeconds || len(v.Completed) != domain.ThroughputSeconds {
		t.Errorf("view = %+v", v)
	}
	if v.Key != store.DefaultKeys.Queue("email-jobs") || v.PayloadKey != store.DefaultKeys.QueueJobs("email-jobs") {
		t.Errorf("keys = %q, %q", v.Key, v.PayloadKey)
	}
}

// A throughput field reads back as tputField writes it; anything else is refused.
func TestThroughputFieldReadsWhatTheScriptsWrite(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 2, 10, 0, 42, 0, time.UTC)
	for want, kind := range []byte("ecf") {
		if k, sec, ok := ThroughputField(tputField(at, kind)); !ok || k != want || sec != 42 {
			t.Errorf("tputField(…, %q) reads as %d, %d, %v", kind, k, sec, ok)
		}
	}
	for _, bad := range []string{"", "e", "x12", "e1x", "12"} {
		if _, _, ok := ThroughputField(bad); ok {
			t.Errorf("ThroughputField(%q) accepted", bad)
		}
	}
}
