package queues

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// seedDead puts n dead jobs in queue's dead set directly, 50 to a millisecond (the reaper
// kills a batch at one time), each with a kept priority-queue score of priority 3.
func seedDead(t testing.TB, rdb redis.UniversalClient, queue string, n int, prefix string) {
	t.Helper()
	ctx := context.Background()
	pipe := rdb.Pipeline()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s%05d", prefix, i)
		pipe.ZAdd(ctx, store.DefaultKeys.QueueDead(queue), redis.Z{Score: float64(testNow.UnixMilli() + int64(i/50)), Member: id})
		pipe.HSet(ctx, store.DefaultKeys.QueueScores(queue), id, 3*domain.PriorityFactor+testNow.UnixMilli())
		pipe.HSet(ctx, store.DefaultKeys.QueueAttempts(queue), id, 5)
		if i%1000 == 0 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// Paging through 10,000 dead jobs while the set changes: every job that is dead the whole
// time is seen exactly once, forward and backward, in the list's order (latest death first,
// ties by id descending).
func TestJobsPagingThroughDeadWhileItChanges(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx := context.Background()
	const n = 10_000
	seedDead(t, rdb, "mail", n, "job-")
	stable := map[string]bool{}
	for i := 0; i < n; i++ {
		stable[fmt.Sprintf("job-%05d", i)] = true
	}
	seen := map[string]int{}
	opt := domain.JobListOptions{State: domain.JobDead, Limit: 300}
	var last *domain.JobListItem
	pages := 0
	for {
		page, err := q.Jobs(ctx, "mail", opt)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for i, j := range page.Jobs {
			seen[j.ID]++
			if last != nil && (j.Score > last.Score || (j.Score == last.Score && j.ID >= last.ID)) {
				t.Fatalf("page %d item %d: %v after %v: not in decreasing (score, id) order", pages, i, j, *last)
			}
			last = &page.Jobs[i]
		}
		// The set changes between pages: new deaths (ahead of and behind the cursor), and
		// jobs deleted behind it and ahead of it (those are not counted as stable).
		gone := fmt.Sprintf("job-%05d", (pages*37)%n)
		delete(stable, gone)
		rdb.ZRem(ctx, store.DefaultKeys.QueueDead("mail"), gone)
		rdb.ZAdd(ctx, store.DefaultKeys.QueueDead("mail"),
			redis.Z{Score: float64(testNow.UnixMilli() + int64(pages%200)), Member: fmt.Sprintf("new-%d", pages)})
		if page.Next == "" {
			break
		}
		opt.Cursor = page.Next
	}
	for id := range stable {
		if seen[id] != 1 {
			t.Fatalf("job %s seen %d times; want once", id, seen[id])
		}
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("job %s seen %d times", id, c)
		}
	}
	if pages < n/300 {
		t.Fatalf("%d pages", pages)
	}

	// Backward from the end: the same jobs once each.
	back := map[string]int{}
	page, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobDead, Limit: 500, Cursor: opt.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range page.Jobs {
		back[j.ID]++
	}
	for page.Prev != "" {
		if page, err = q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobDead, Limit: 500, Cursor: page.Prev}); err != nil {
			t.Fatal(err)
		}
		for _, j := range page.Jobs {
			back[j.ID]++
		}
	}
	for id := range stable {
		if back[id] != 1 {
			t.Fatalf("backward: job %s seen %d times; want once", id, back[id])
		}
	}
	if page.Counts.Dead != rdb.ZCard(ctx, store.DefaultKeys.QueueDead("mail")).Val() {
		t.Fatalf("counts %+v", page.Counts)
	}
}

// Waiting and scheduled split a delayed queue at now; a priority queue schedules nothing.
func TestJobsByStateAndCounts(t *testing.T) {
	t.Parallel()
	q, _, clock := newTestQueues(t)
	ctx := context.Background()
	for i, d := range []time.Duration{0, 0, time.Minute, time.Hour} {
		if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: fmt.Sprintf("d%d", i), Delay: d}); err != nil {
			t.Fatal(err)
		}
	}
	enqueue(t, q, "prio", "b", 2)
	enqueue(t, q, "prio", "a", 1)
	waiting, err := q.Jobs(ctx, "delayed", domain.JobListOptions{State: domain.JobWaiting, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(waiting.Jobs) != 2 || waiting.Counts != (domain.JobCounts{Waiting: 2, Scheduled: 2}) {
		t.Fatalf("delayed waiting: %+v", waiting)
	}
	sched, _ := q.Jobs(ctx, "delayed", domain.JobListOptions{State: domain.JobScheduled, Limit: 1})
	if len(sched.Jobs) != 1 || sched.Jobs[0].ID != "d2" || sched.Next == "" || sched.Prev != "" {
		t.Fatalf("scheduled page 1: %+v", sched)
	}
	sched2, _ := q.Jobs(ctx, "delayed", domain.JobListOptions{State: domain.JobScheduled, Limit: 1, Cursor: sched.Next})
	if len(sched2.Jobs) != 1 || sched2.Jobs[0].ID != "d3" || sched2.Next != "" || sched2.Prev == "" {
		t.Fatalf("scheduled page 2: %+v", sched2)
	}
	clock.Advance(2 * time.Minute)
	waiting, _ = q.Jobs(ctx, "delayed", domain.JobListOptions{State: domain.JobWaiting, Limit: 10})
	if waiting.Counts.Waiting != 3 || waiting.Counts.Scheduled != 1 {
		t.Fatalf("after 2 min: %+v", waiting.Counts)
	}
	p, _ := q.Jobs(ctx, "prio", domain.JobListOptions{State: domain.JobWaiting, Limit: 10})
	if len(p.Jobs) != 2 || p.Jobs[0].ID != "a" || p.Jobs[0].Priority == nil || *p.Jobs[0].Priority != 1 {
		t.Fatalf("priority waiting: %+v", p)
	}
	s, _ := q.Jobs(ctx, "prio", domain.JobListOptions{State: domain.JobScheduled, Limit: 10})
	if len(s.Jobs) != 0 || s.Counts.Waiting != 2 {
		t.Fatalf("priority scheduled: %+v", s)
	}
}

// A cursor zpulse did not make, made for another state or queue, or edited by hand, is
// EINVALID: cursors are signed.
func TestJobsCursorValidation(t *testing.T) {
	t.Parallel()
	q, _, _ := newTestQueues(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		enqueue(t, q, "mail", id, 1)
		enqueue(t, q, "other", id, 1)
	}
	first, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 1})
	if err != nil || first.Next == "" {
		t.Fatalf("first page: %+v %v", first, err)
	}
	good := first.Next
	body, sig, _ := strings.Cut(good, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	edited := b64enc(strings.Replace(string(raw), "|a", "|c", 1)) + "." + sig // skip ahead by hand
	for _, c := range []string{"%%%", "bm9wZQ", edited, b64enc(string(raw)), body + ".AAAA",
		b64enc("j1|waiting|n|NaN|x"), strings.Repeat("A", 300)} {
		if _, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 5, Cursor: c}); domain.ErrorCode(err) != domain.EINVALID ||
			!strings.Contains(err.Error(), "changed") {
			t.Errorf("cursor %q: %v; want EINVALID saying it was changed", c, err)
		}
	}
	for _, other := range []struct {
		queue string
		state domain.JobState
	}{{"other", domain.JobWaiting}, {"mail", domain.JobDead}} {
		if _, err := q.Jobs(ctx, other.queue, domain.JobListOptions{State: other.state, Limit: 5, Cursor: good}); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("cursor of mail's waiting list on %s's %s list: %v; want EINVALID", other.queue, other.state, err)
		}
	}
	if page, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 5, Cursor: good}); err != nil || len(page.Jobs) != 2 {
		t.Errorf("good cursor: %+v %v", page, err)
	}
	// Another instance on the same Redis reads this one's cursors.
	q2, _ := newTestQueuesOn(t, q.Rdb)
	if _, err := q2.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 5, Cursor: good}); err != nil {
		t.Errorf("good cursor on another instance: %v", err)
	}
	for _, limit := range []int{0, -1, domain.MaxJobPage + 1} {
		if _, err := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobDead, Limit: limit}); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
}

func b64enc(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// Requeuing 10,000 dead jobs moves them all, in batches, each keeping its priority; a dead
// job whose id waits again stays dead and is counted as skipped.
func TestRequeueDeadInBulk(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testRequeueDeadInBulk)
}

func testRequeueDeadInBulk(t *testing.T, rdb redis.UniversalClient) {
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	const n = 10_000
	seedDead(t, rdb, "mail", n, "job-")
	rdb.ZAdd(ctx, store.DefaultKeys.Queue("mail"), redis.Z{Score: 1, Member: "job-00042"}) // waits again
	res, err := q.RequeueDead(ctx, "mail")
	if err != nil {
		t.Fatal(err)
	}
	if res.Moved != n-1 || res.Skipped != 1 || res.Batches != n/domain.DeadBatch+1 && res.Batches != n/domain.DeadBatch {
		t.Fatalf("result %+v", res)
	}
	if got := rdb.ZCard(ctx, store.DefaultKeys.Queue("mail")).Val(); got != n {
		t.Fatalf("queue holds %d; want %d", got, n)
	}
	if got := rdb.ZRange(ctx, store.DefaultKeys.QueueDead("mail"), 0, -1).Val(); len(got) != 1 || got[0] != "job-00042" {
		t.Fatalf("dead left: %v", got)
	}
	if rdb.HLen(ctx, store.DefaultKeys.QueueAttempts("mail")).Val() != 1 { // the skipped one's only
		t.Fatalf("attempts kept for requeued jobs")
	}
	d, ok := poll(t, q, "mail", domain.PollOptions{})
	if !ok || d.Priority == nil || *d.Priority != 0 { // job-00042 at score 1: priority 0
		t.Fatalf("first poll: %+v", d)
	}
	d, _ = poll(t, q, "mail", domain.PollOptions{})
	if d.Priority == nil || *d.Priority != 3 {
		t.Fatalf("requeued job lost its priority: %+v", d)
	}
}

func TestDeleteDeadInBulk(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testDeleteDeadInBulk)
}

func testDeleteDeadInBulk(t *testing.T, rdb redis.UniversalClient) {
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	seedDead(t, rdb, "mail", 1234, "job-")
	rdb.HSet(ctx, store.DefaultKeys.QueueJobs("mail"), "job-00001", `{"a":1}`)
	res, err := q.DeleteDead(ctx, "mail")
	if err != nil || res.Moved != 1234 || res.Batches != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	for _, k := range []string{store.DefaultKeys.QueueDead("mail"), store.DefaultKeys.QueueJobs("mail"), store.DefaultKeys.QueueScores("mail"), store.DefaultKeys.QueueAttempts("mail")} {
		if rdb.Exists(ctx, k).Val() != 0 {
			t.Errorf("%s still exists", k)
		}
	}
	if res, err := q.DeleteDead(ctx, "mail"); err != nil || res.Moved != 0 {
		t.Fatalf("again: %+v %v", res, err)
	}
}

// A job's detail follows it: waiting with its payload, in flight with its lease, back with
// the error of its failed attempt, dead after the last one; gone after a delete.
func TestJobDetail(t *testing.T) { t.Parallel(); redistest.ForEachTopologyParallel(t, testJobDetail) }

func testJobDetail(t *testing.T, rdb redis.UniversalClient) {
	q, clock := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	if _, err := q.UpdateSettings(ctx, "mail", domain.QueueSettings{Kind: domain.PriorityQueue, MaxAttempts: 2}); err != nil {
		t.Fatal(err)
	}
	job := prio(4)
	job.ID, job.Payload = "invoice", []byte(`{"to":"<ana>"}`)
	if _, err := q.Enqueue(ctx, "mail", job); err != nil {
		t.Fatal(err)
	}
	j, err := q.Job(ctx, "mail", "invoice")
	if err != nil || j.State != domain.JobWaiting || *j.Priority != 4 || !j.EnqueuedAt.Equal(testNow) || string(j.Payload) != `{"to":"<ana>"}` || j.MaxAttempts != 2 {
		t.Fatalf("waiting: %+v %v", j, err)
	}
	d, _ := poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
	j, _ = q.Job(ctx, "mail", "invoice")
	if j.State != domain.JobInFlight || j.Attempts != 1 || j.LeaseDeadline == nil || !strings.HasPrefix(j.LeaseHolder, "lease-") ||
		strings.Contains(j.LeaseHolder, d.Token) || *j.Priority != 4 {
		t.Fatalf("in flight: %+v", j)
	}
	if _, err := q.Nack(ctx, "mail", "invoice", d.Token, 0, "smtp: 451 try later"); err != nil {
		t.Fatal(err)
	}
	j, _ = q.Job(ctx, "mail", "invoice")
	if j.State != domain.JobWaiting || len(j.Errors) != 1 || j.Errors[0].Error != "smtp: 451 try later" || j.LeaseHolder != "" {
		t.Fatalf("after nack: %+v", j)
	}
	d, _ = poll(t, q, "mail", domain.PollOptions{Lease: time.Minute})
	clock.Advance(2 * time.Minute)
	if _, died, err := q.Reap(ctx, 1); died != 1 || err != nil {
		t.Fatalf("reap: %d %v", died, err)
	}
	j, _ = q.Job(ctx, "mail", "invoice")
	if j.State != domain.JobDead || j.DiedAt == nil || len(j.Errors) != 2 || j.Errors[1].Error != domain.LeaseEndedError || *j.Priority != 4 {
		t.Fatalf("dead: %+v", j)
	}
	if _, err := q.Delete(ctx, "mail", "invoice"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Job(ctx, "mail", "invoice"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("deleted: %v", err)
	}
	if _, err := q.Job(ctx, "mail", ""); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("empty id: %v", err)
	}
}

// While a queue is paused every kind of poll through zpulse takes nothing; the job stays.
func TestPausedQueueTakesNothing(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testPausedQueueTakesNothing)
}

func testPausedQueueTakesNothing(t *testing.T, rdb redis.UniversalClient) {
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	enqueue(t, q, "mail", "a", 1)
	if _, err := q.Enqueue(ctx, "delayed", domain.NewJob{ID: "d"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mail", "delayed"} {
		if err := q.SetPaused(ctx, name, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		queue string
		opt   domain.PollOptions
	}{{"mail", domain.PollOptions{}}, {"mail", domain.PollOptions{Lease: time.Minute}}, {"mail", domain.PollOptions{Wait: time.Second}},
		{"delayed", domain.PollOptions{}}, {"delayed", domain.PollOptions{Lease: time.Minute}}} {
		if d, ok := poll(t, q, c.queue, c.opt); ok {
			t.Fatalf("paused %s %+v took %+v", c.queue, c.opt, d)
		}
	}
	if v, _ := q.View(ctx, "mail"); !v.Paused || v.Waiting != 1 {
		t.Fatalf("view: paused %v, waiting %d", v.Paused, v.Waiting)
	}
	if j, _ := q.Job(ctx, "mail", "a"); !j.Paused {
		t.Fatalf("job does not say its queue is paused")
	}
	if err := q.SetPaused(ctx, "mail", false); err != nil {
		t.Fatal(err)
	}
	if d, ok := poll(t, q, "mail", domain.PollOptions{}); !ok || d.ID != "a" {
		t.Fatalf("resumed: %+v %v", d, ok)
	}
	if rdb.Exists(ctx, store.DefaultKeys.QueuePaused("mail")).Val() != 0 {
		t.Fatal("pause key left")
	}
}

// A blocking take on a paused queue waits as on an empty one: it takes nothing, and answers
// only when its wait is over (a consumer's loop does not spin), or when the queue is resumed
// and it takes the job.
func TestPausedDuringBlockingTake(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx := context.Background()
	rdb.Set(ctx, store.DefaultKeys.QueuePaused("mail"), "1", 0)
	// Paused before the wait: nothing is popped at all.
	enqueue(t, q, "mail", "a", 1)
	start := time.Now()
	if _, ok := poll(t, q, "mail", domain.PollOptions{Wait: time.Second}); ok {
		t.Fatal("took while paused")
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("a take on a paused queue answered after %v, want its wait of 1s", waited)
	}
	if rdb.ZCard(ctx, store.DefaultKeys.Queue("mail")).Val() != 1 {
		t.Fatal("job left the queue")
	}
	// Resumed while a take waits: it takes the job then, long before its wait is over.
	took := make(chan domain.Delivery, 1)
	go func() {
		d, _, _ := q.Poll(ctx, "mail", domain.PollOptions{Wait: domain.MaxTakeWait})
		took <- d
	}()
	if err := q.SetPaused(ctx, "mail", false); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-took:
		if d.ID != "a" {
			t.Errorf("resumed take got %+v, want a", d)
		}
	case <-time.After(domain.MaxTakeWait / 2):
		t.Fatal("a take waiting on a paused queue did not wake when it was resumed")
	}
}
