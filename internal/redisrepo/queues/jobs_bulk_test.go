package queues

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// enqueueWithPayload enqueues job id at priority 1 with payload.
func enqueueWithPayload(t testing.TB, q *Queues, queue, id, payload string) {
	t.Helper()
	job := prio(1)
	job.ID, job.Payload = id, []byte(payload)
	if _, err := q.Enqueue(context.Background(), queue, job); err != nil {
		t.Fatalf("Enqueue(%s): %v", id, err)
	}
}

// A search scans at most 1,000 jobs a step and says how far it got: going on with its cursor
// finds every match exactly once, ids by prefix and payloads by substring ignoring case;
// a step stops at its limit-th match; ids-only matches no payload; a payload bound to an
// earlier job of that id (re-added by another service) is not searched; a backward cursor
// is refused.
func TestSearchJobs(t *testing.T) { t.Parallel(); redistest.ForEachTopologyParallel(t, testSearchJobs) }

func testSearchJobs(t *testing.T, rdb redis.UniversalClient) {
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	const n = 2500
	want := map[string]bool{}
	for i := range n {
		id, to := fmt.Sprintf("job-%04d", i), "bob@example.org"
		if i%7 == 0 {
			to, want[id] = "Ana@Example.ORG", true
		}
		enqueueWithPayload(t, q, "mail", id, `{"to":"`+to+`"}`)
	}
	enqueueWithPayload(t, q, "mail", "ana-1", `{"to":"x"}`) // an id prefix match
	want["ana-1"] = true
	enqueueWithPayload(t, q, "mail", "zed", `{"to":"ana@example.org"}`)
	rdb.ZAdd(ctx, store.DefaultKeys.Queue("mail"), redis.Z{Score: 5, Member: "zed"}) // re-added by another service: a new job

	opt := domain.JobSearchOptions{State: domain.JobWaiting, Text: "ana@example.org", Limit: domain.MaxJobPage}
	seen, steps := map[string]int{}, 0
	for {
		page, err := q.SearchJobs(ctx, "mail", opt)
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if page.Scanned > domain.MaxSearchScan || !page.PayloadsSearched || page.Counts.Waiting != n+2 {
			t.Fatalf("step %d: scanned %d, payloads %v, counts %+v", steps, page.Scanned, page.PayloadsSearched, page.Counts)
		}
		for _, j := range page.Jobs {
			seen[j.ID]++
			if j.Match != "payload" {
				t.Errorf("%s matched by %q", j.ID, j.Match)
			}
		}
		if page.Next == "" {
			break
		}
		opt.Cursor = page.Next
	}
	if steps != 3 {
		t.Errorf("%d steps for %d jobs, want 3 of at most %d", steps, n+2, domain.MaxSearchScan)
	}
	for id := range want {
		if id != "ana-1" && seen[id] != 1 {
			t.Errorf("%s seen %d times", id, seen[id])
		}
	}
	if len(seen) != len(want)-1 {
		t.Errorf("found %d jobs, want %d (zed's payload belongs to an earlier job)", len(seen), len(want)-1)
	}

	// An id prefix (zed and ana-1 come first in the list); a step that stops at its limit, and goes on after its last match.
	page, err := q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobWaiting, Text: "job-000", Limit: 4})
	if err != nil || len(page.Jobs) != 4 || page.Scanned != 6 || page.Jobs[3].ID != "job-0003" || page.Jobs[0].Match != "id" {
		t.Fatalf("prefix: %+v %v", page, err)
	}
	page, _ = q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobWaiting, Text: "job-000", Limit: 50, Cursor: page.Next})
	if len(page.Jobs) != 6 || page.Jobs[0].ID != "job-0004" {
		t.Fatalf("prefix, going on: %+v", page.Jobs)
	}
	// Ids only: a payload says nothing.
	page, _ = q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobWaiting, Text: "ana", Limit: 50, IDsOnly: true})
	if len(page.Jobs) != 1 || page.Jobs[0].ID != "ana-1" || page.PayloadsSearched {
		t.Fatalf("ids only: %+v", page)
	}
	// A backward list cursor is not a search's.
	list, _ := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 2, Cursor: page.Next})
	back, _ := q.Jobs(ctx, "mail", domain.JobListOptions{State: domain.JobWaiting, Limit: 2, Cursor: list.Next})
	if _, err := q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobWaiting, Limit: 5, Cursor: back.Prev}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("backward cursor: %v", err)
	}
	if _, err := q.SearchJobs(ctx, "mail", domain.JobSearchOptions{State: domain.JobWaiting, Limit: 5, Text: strings.Repeat("x", 201)}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("long text: %v", err)
	}
}

// deadJob enqueues id with payload on a queue whose jobs die at their first failure, and
// kills it through a lease and a nack.
func deadJob(t testing.TB, q *Queues, queue, id, payload string) {
	t.Helper()
	ctx := context.Background()
	if _, err := q.PatchSettings(ctx, queue, domain.QueueSettingsPatch{MaxAttempts: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	enqueueWithPayload(t, q, queue, id, payload)
	d, ok := poll(t, q, queue, domain.PollOptions{Lease: time.Minute})
	if !ok || d.ID != id {
		t.Fatalf("poll for %s: %+v", id, d)
	}
	if where, err := q.Nack(ctx, queue, id, d.Token, 0, "boom"); err != nil || where != domain.DeadLetter {
		t.Fatalf("nack %s: %v %v", id, where, err)
	}
}

func ptr[T any](v T) *T { return &v }

// A bulk call acts on each job in the state it has, in atomic batches, and says what failed
// and why: requeue takes dead jobs only, dead takes waiting and in-flight jobs (whose lease
// then ends), delete takes any; a match call acts on what a search finds.
func TestBulkJobs(t *testing.T) { t.Parallel(); redistest.ForEachTopologyParallel(t, testBulkJobs) }

func testBulkJobs(t *testing.T, rdb redis.UniversalClient) {
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	deadJob(t, q, "mail", "d1", `{"n":1}`)
	deadJob(t, q, "mail", "d2", `{"n":2}`)
	enqueueWithPayload(t, q, "mail", "w1", `{"n":3}`)
	res, err := q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkRequeue, IDs: []string{"d1", "w1", "nope", "d2"}})
	if err != nil || res.Done != 2 || res.Failed != 2 || res.Batches != 1 ||
		fmt.Sprint(res.Failures) != fmt.Sprint([]domain.BulkFailure{{ID: "w1", Reason: domain.BulkWrongState, State: domain.JobWaiting}, {ID: "nope", Reason: domain.BulkNotFound}}) {
		t.Fatalf("requeue: %+v %v", res, err)
	}
	if j, _ := q.Job(ctx, "mail", "d1"); j.State != domain.JobWaiting || string(j.Payload) != `{"n":1}` || *j.Priority != 1 || j.Attempts != 0 {
		t.Fatalf("requeued d1: %+v", j)
	}

	// To the dead set: a waiting job keeps its priority, a leased one loses its lease.
	d, _ := poll(t, q, "mail", domain.PollOptions{Lease: time.Minute}) // d1: of one score, the least id
	res, err = q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkKill, IDs: []string{d.ID, "d2", "w1"}})
	if err != nil || res.Done != 3 || res.Failed != 0 {
		t.Fatalf("dead: %+v %v", res, err)
	}
	if err := q.Ack(ctx, "mail", d.ID, d.Token); err == nil {
		t.Errorf("the ack of a job moved to the dead set succeeded")
	}
	j, _ := q.Job(ctx, "mail", "w1")
	if j.State != domain.JobDead || len(j.Errors) != 1 || j.Errors[0].Error != domain.KilledByOperator || *j.Priority != 1 {
		t.Fatalf("w1 after dead: %+v", j)
	}
	res, _ = q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkKill, IDs: []string{"w1"}})
	if res.Failed != 1 || res.Failures[0].Reason != domain.BulkWrongState || res.Failures[0].State != domain.JobDead {
		t.Fatalf("dead again: %+v", res)
	}

	// A match: the dead jobs whose payload holds "n":2 or "n":3.
	res, err = q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkRequeue,
		Match: &domain.JobSearchOptions{State: domain.JobDead, Text: `"n":`}})
	if err != nil || res.Done != 3 || res.Scanned != 3 || res.Next != "" {
		t.Fatalf("match: %+v %v", res, err)
	}
	res, err = q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkDelete, IDs: []string{"d1", "d2", "w1", "d1"}})
	if err != nil || res.Done != 3 || res.Failed != 1 || res.Failures[0].Reason != domain.BulkNotFound {
		t.Fatalf("delete: %+v %v", res, err)
	}
	if n := rdb.Exists(ctx, store.DefaultKeys.Queue("mail"), store.DefaultKeys.QueueDead("mail"), store.DefaultKeys.QueueJobs("mail")).Val(); n != 0 {
		t.Errorf("%d keys left after deleting every job", n)
	}

	// Bad requests change nothing; another type at the queue's name is wrong_type.
	for _, req := range []domain.BulkRequest{
		{Action: "wipe", IDs: []string{"a"}},
		{Action: domain.BulkDelete},
		{Action: domain.BulkDelete, IDs: []string{"a"}, Match: &domain.JobSearchOptions{State: domain.JobDead}},
		{Action: domain.BulkDelete, IDs: make([]string, domain.MaxBulkIDs+1)},
		{Action: domain.BulkDelete, IDs: []string{""}},
		{Action: domain.BulkDelete, Match: &domain.JobSearchOptions{State: "gone"}},
	} {
		if _, err := q.BulkJobs(ctx, "mail", req); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("%+v: %v", req, err)
		}
	}
	rdb.RPush(ctx, "queue:rq", "their-job")
	_, err = q.BulkJobs(ctx, "rq", domain.BulkRequest{Action: domain.BulkDelete, IDs: []string{"their-job"}})
	wantWrongType(t, "bulk", err, "queue:rq", "list")
}

// More ids than a batch go in several atomic batches; a match call stops after MaxBulkScan
// jobs and says where to go on.
func TestBulkJobsInBatches(t *testing.T) {
	t.Parallel()
	q, rdb, _ := newTestQueues(t)
	ctx := context.Background()
	seedDead(t, rdb, "mail", 12_000, "job-")
	ids := make([]string, domain.MaxBulkIDs)
	for i := range ids {
		ids[i] = fmt.Sprintf("job-%05d", i)
	}
	res, err := q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkRequeue, IDs: ids})
	if err != nil || res.Done != domain.MaxBulkIDs || res.Batches != 2 {
		t.Fatalf("ids: %+v %v", res, err)
	}
	res, err = q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkDelete, Match: &domain.JobSearchOptions{State: domain.JobDead, Text: "job-"}})
	if err != nil || res.Scanned != domain.MaxBulkScan || res.Done != domain.MaxBulkScan || res.Next == "" {
		t.Fatalf("match, first call: scanned %d done %d next %q %v", res.Scanned, res.Done, res.Next, err)
	}
	res, err = q.BulkJobs(ctx, "mail", domain.BulkRequest{Action: domain.BulkDelete, Match: &domain.JobSearchOptions{State: domain.JobDead, Text: "job-", Cursor: res.Next}})
	if err != nil || res.Done != 1000 || res.Next != "" || rdb.ZCard(ctx, store.DefaultKeys.QueueDead("mail")).Val() != 0 {
		t.Fatalf("match, going on: %+v %v", res, err)
	}
}

// A dead job retried with a new payload and priority is delivered with them, and its history
// keeps what changed; on a delayed queue a run-at schedules it. Only a dead job is retried.
func TestRetryWithEdit(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testRetryWithEdit)
}

func testRetryWithEdit(t *testing.T, rdb redis.UniversalClient) {
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	deadJob(t, q, "mail", "inv", `{"to":"typo@exmaple.org"}`)
	r, err := q.Retry(ctx, "mail", "inv", domain.JobRetry{Payload: []byte(`{"to":"ana@example.org"}`), HasPayload: true, Priority: 0, HasPriority: true})
	wantEdit := "requeued by an operator with priority 0 (was 1), payload: /to changed (24 bytes, was 25)"
	if err != nil || *r.Priority != 0 || r.Edit != wantEdit ||
		!reflect.DeepEqual(r.PayloadChanges, []domain.PayloadChange{{Op: "changed", Path: "/to", Old: `"typo@exmaple.org"`, New: `"ana@example.org"`}}) {
		t.Fatalf("retry: %+v %v", r, err)
	}
	j, _ := q.Job(ctx, "mail", "inv")
	if j.State != domain.JobWaiting || j.Attempts != 0 || len(j.Errors) != 2 || j.Errors[0].Error != "boom" ||
		j.Errors[1].Edit != wantEdit || j.Errors[1].Error != "" || j.Errors[1].Attempt != 1 {
		t.Fatalf("after retry: %+v", j)
	}
	// A job that is not dead is refused with 409 saying where it is.
	if _, err := q.Retry(ctx, "mail", "inv", domain.JobRetry{}); domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "is waiting") {
		t.Errorf("retry of a waiting job: %v, want conflict saying it waits", err)
	}
	d, _ := poll(t, q, "mail", domain.PollOptions{})
	if d.ID != "inv" || string(d.Payload) != `{"to":"ana@example.org"}` || *d.Priority != 0 {
		t.Fatalf("delivery: %+v", d)
	}
	if _, err := q.Retry(ctx, "mail", "inv", domain.JobRetry{}); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("retry of a job taken without a lease (gone): %v, want not_found", err)
	}

	// Unchanged, and without a payload.
	deadJob(t, q, "mail", "b", `{"x":1}`)
	deadJob(t, q, "mail", "c", `{"x":1}`)
	if r, err := q.Retry(ctx, "mail", "b", domain.JobRetry{}); err != nil || r.Edit != "requeued by an operator, unchanged" || *r.Priority != 1 {
		t.Fatalf("unchanged: %+v %v", r, err)
	}
	if r, _ := q.Retry(ctx, "mail", "c", domain.JobRetry{HasPayload: true}); !strings.Contains(r.Edit, "no payload (was 7 bytes)") {
		t.Errorf("payload removed: %+v", r)
	}
	if j, _ := q.Job(ctx, "mail", "c"); j.Payload != nil {
		t.Errorf("payload kept: %s", j.Payload)
	}

	// A delayed queue takes a run-at, not a priority.
	if _, err := q.UpdateSettings(ctx, "later", domain.QueueSettings{Kind: domain.DelayedQueue, MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	job := domain.NewJob{ID: "rem"}
	if _, err := q.Enqueue(ctx, "later", job); err != nil {
		t.Fatal(err)
	}
	d, _ = poll(t, q, "later", domain.PollOptions{Lease: time.Minute})
	if _, err := q.Nack(ctx, "later", "rem", d.Token, 0, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Retry(ctx, "later", "rem", domain.JobRetry{HasPriority: true, Priority: 2}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("priority on a delayed queue: %v", err)
	}
	if _, err := q.Retry(ctx, "later", "rem", domain.JobRetry{RunAt: testNow.Add(2 * domain.MaxDelay)}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("run-at beyond a year: %v", err)
	}
	at := testNow.Add(time.Hour)
	r, err = q.Retry(ctx, "later", "rem", domain.JobRetry{RunAt: at})
	if err != nil || !r.RunAt.Equal(at) || r.Edit != "requeued by an operator with run at "+at.UTC().Format(time.RFC3339Nano) {
		t.Fatalf("run-at: %+v %v", r, err)
	}
	if j, _ := q.Job(ctx, "later", "rem"); j.State != domain.JobScheduled {
		t.Errorf("after a retry an hour ahead: %s", j.State)
	}
	rdb.RPush(ctx, "queue:rq", "their-job")
	_, err = q.Retry(ctx, "rq", "their-job", domain.JobRetry{})
	wantWrongType(t, "retry", err, "queue:rq", "list")
}

// wantWrongType fails unless err is domain.CodeWrongType naming key and its type.
func wantWrongType(t *testing.T, what string, err error, key, typ string) {
	t.Helper()
	msg := domain.ErrorMessage(err)
	if domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(msg, `"`+key+`"`) || !strings.Contains(msg, "is a "+typ) {
		t.Errorf("%s: err = %v, want wrong_type naming %q as a %s", what, err, key, typ)
	}
}

// An edit's changes are those from the payload stored when the job is requeued: a payload
// changed between the read that compared it and the requeue is read and compared again.
func TestRetryComparesWithThePayloadStoredNow(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	q, _ := newTestQueuesOn(t, rdb)
	ctx := context.Background()
	deadJob(t, q, "mail", "inv", `{"to":"a@x","lang":"en"}`)
	jobs := store.DefaultKeys.QueueJobs("mail")
	var once sync.Once
	rdb.AddHook(redistest.HookAfter(func(cmd redis.Cmder) {
		if cmd.Name() == "hget" && cmd.Args()[1] == jobs {
			once.Do(func() { rdb.HSet(ctx, jobs, "inv", `@0|{"to":"a@x","lang":"fr"}`) })
		}
	}))
	r, err := q.Retry(ctx, "mail", "inv", domain.JobRetry{Payload: []byte(`{"to":"b@x","lang":"fr"}`), HasPayload: true})
	if err != nil || !strings.Contains(r.Edit, "payload: /to changed (") ||
		!reflect.DeepEqual(r.PayloadChanges, []domain.PayloadChange{{Op: "changed", Path: "/to", Old: `"a@x"`, New: `"b@x"`}}) {
		t.Fatalf("retry: %+v %v, want only /to changed from the payload stored when it was requeued", r, err)
	}
}
