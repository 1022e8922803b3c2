package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// leasedPoll polls queue with a lease over the API and returns the delivery.
func (s *testServer) leasedPoll(t *testing.T, queue string) domain.Delivery {
	t.Helper()
	status, body := s.postJSON(t, "/api/v1/queues/"+queue+"/poll", `{"lease_ms":30000}`)
	var d domain.Delivery
	if err := json.Unmarshal([]byte(body), &d); status != http.StatusOK || err != nil || d.Token == "" {
		t.Fatalf("leased poll: %d %s", status, body)
	}
	return d
}

// A late ack after redelivery is a 409 that says the lease passed on, and the second
// consumer's ack is a 204.
func TestAPILateAckAfterRedelivery(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"invoice","priority":1}`)
	a := s.leasedPoll(t, "email-jobs")
	// A's lease ends (its deadline moved into the past, as time would) and the reaper gives the
	// job back; B gets it.
	s.rdb.ZAdd(ctx, "{queue:email-jobs}:processing", redis.Z{Score: 1, Member: "invoice"})
	if r, _, err := s.queues.Reap(ctx, 1); r != 1 || err != nil {
		t.Fatalf("reap: %d, %v", r, err)
	}
	b := s.leasedPoll(t, "email-jobs")
	if b.ID != "invoice" || b.Attempt != 2 {
		t.Fatalf("B's delivery: %+v; want invoice, attempt 2", b)
	}
	status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/ack", `{"token":"`+a.Token+`"}`)
	if status != http.StatusConflict || !strings.Contains(body, `"code":"conflict"`) || !strings.Contains(body, "passed on") {
		t.Errorf("A's late ack: %d %s; want 409 saying the lease passed on", status, body)
	}
	status, body = s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/extend", `{"token":"`+a.Token+`","lease_ms":30000}`)
	if status != http.StatusConflict {
		t.Errorf("A's late extend: %d %s", status, body)
	}
	status, body = s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/extend", `{"token":"`+b.Token+`","lease_ms":60000}`)
	if status != http.StatusOK || !strings.Contains(body, `"lease_deadline"`) {
		t.Errorf("B's extend: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/ack", `{"token":"`+b.Token+`"}`); status != http.StatusNoContent {
		t.Errorf("B's ack: %d %s", status, body)
	}

	// A retried enqueue of the completed job is a 409 saying it already ran.
	status, body = s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"invoice","priority":1}`)
	if status != http.StatusConflict || !strings.Contains(body, "already ran") {
		t.Errorf("retried enqueue: %d %s", status, body)
	}
}

// Nack gives a job back with its error, and answers where it went; bad input is a 400.
func TestAPINack(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"welcome","priority":1}`)
	d := s.leasedPoll(t, "email-jobs")
	for _, c := range []struct{ body, want string }{
		{`{"token":"` + d.Token + `","delay_ms":-1}`, "delay_ms must be"},
		{`{"token":"` + d.Token + `","delay_ms":31536000001}`, "delay_ms must be"},
		{`{"token":"` + d.Token + `","delay_ms":1.5}`, "delay_ms must be"},
		{`{"token":"` + d.Token + `","error":"` + strings.Repeat("x", domain.MaxErrorBytes+1) + `"}`, "at most 4 KiB"},
		{`{"delay_ms":0}`, "token must be"},
		{`{"token":"` + d.Token + `","lease_ms":1000}`, "not allowed"},
	} {
		if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/welcome/nack", c.body); status != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("nack %.60s: %d %s; want 400 saying %q", c.body, status, body, c.want)
		}
	}
	status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/welcome/nack", `{"token":"`+d.Token+`","error":"smtp: 451"}`)
	if status != http.StatusOK || !strings.Contains(body, `"state":"waiting"`) {
		t.Fatalf("nack: %d %s", status, body)
	}
	errs, err := s.queues.AttemptErrors(context.Background(), "email-jobs", "welcome")
	if err != nil || len(errs) != 1 || errs[0].Error != "smtp: 451" || errs[0].Attempt != 1 {
		t.Errorf("attempt errors: %+v, %v", errs, err)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/welcome/extend", `{"token":"`+d.Token+`"}`); status != http.StatusBadRequest || !strings.Contains(body, "lease_ms is required") {
		t.Errorf("extend without lease_ms: %d %s", status, body)
	}

	// On a priority queue a delay parks the job out of the queue until it is over: the job
	// is scheduled, with the time it returns and its priority.
	d = s.leasedPoll(t, "email-jobs")
	status, body = s.postJSON(t, "/api/v1/queues/email-jobs/jobs/welcome/nack", `{"token":"`+d.Token+`","delay_ms":60000}`)
	if status != http.StatusOK || !strings.Contains(body, `"state":"scheduled"`) {
		t.Fatalf("nack with a delay on a priority queue: %d %s; want 200, scheduled", status, body)
	}
	status, body, _ = s.do(t, http.MethodGet, "/api/v1/queues/email-jobs/jobs/welcome", "", "")
	if status != http.StatusOK || !strings.Contains(body, `"state":"scheduled"`) || !strings.Contains(body, `"retry_at"`) || !strings.Contains(body, `"priority":1`) {
		t.Errorf("the retrying job: %d %s; want scheduled, retry_at, priority 1", status, body)
	}
	if status, _, _ := s.do(t, http.MethodPost, "/api/v1/queues/email-jobs/poll", "", ""); status != http.StatusNoContent {
		t.Errorf("a poll during the delay: %d, want 204", status)
	}
	if _, page := s.get(t, "/queues/email-jobs/jobs/welcome"); !strings.Contains(page, `data-testid="job-retry-at"`) || !strings.Contains(page, "at priority 1") {
		t.Errorf("the job page does not say when the job retries at which priority")
	}
	if _, page := s.get(t, "/queues/email-jobs"); !strings.Contains(page, `data-testid="retrying" data-count="1"`) || !strings.Contains(page, "welcome") {
		t.Errorf("the queue page does not list the retrying job")
	}
}

// A poll's body is optional: none, without a Content-Type, is a plain poll (not a 415).
func TestAPIPollWithoutBody(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"a","priority":1}`)
	if status, body, _ := s.do(t, http.MethodPost, "/api/v1/queues/email-jobs/poll", "", ""); status != http.StatusOK || !strings.Contains(body, `"id":"a"`) {
		t.Errorf("poll without a body: %d %s", status, body)
	}
	if status, _, _ := s.do(t, http.MethodPost, "/api/v1/queues/email-jobs/poll", "", ""); status != http.StatusNoContent {
		t.Errorf("poll of an empty queue without a body: %d", status)
	}
	if status, _, _ := s.do(t, http.MethodPost, "/api/v1/queues/email-jobs/poll", "text/plain", `{}`); status != http.StatusUnsupportedMediaType {
		t.Errorf("a body that is not JSON: %d, want 415", status)
	}
}

// A write whose answer was lost after Redis applied it is 503 unknown_outcome in the API, and
// the form says it may or may not have been applied (not "nothing was changed").
func TestUnknownOutcome(t *testing.T) {
	t.Parallel()
	db := redistest.DB(t).Options().DB
	proxy := redistest.NewProxy(t, redistest.Shared().Addr)
	rdb := redis.NewClient(&redis.Options{Addr: proxy.Addr, DB: db, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	s := newTestServer(t, "", rdb)
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"warm-up","priority":1}`); status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", status, body)
	}

	proxy.CutReplyTo("lost-api-reply")
	status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"lost-api-reply","priority":1}`)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"unknown_outcome"`) || !strings.Contains(body, "may or may not") {
		t.Errorf("API: %d %s; want 503 unknown_outcome", status, body)
	}

	proxy.CutReplyTo("lost-form-reply")
	status, body, _ = s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/enqueue",
		url.Values{"id": {"lost-form-reply"}, "priority": {"1"}}, "HX-Request", "true")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "may or may not have been applied") || strings.Contains(body, "nothing was changed") {
		t.Errorf("form: %d %.400s", status, body)
	}
	// Points whose answer was lost: the very case of points added twice by a blind retry.
	if status, body := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"warm-up","points":1}`); status != http.StatusOK {
		t.Fatalf("add points: %d %s", status, body) // and the script is loaded
	}
	proxy.CutReplyTo("lost-points")
	status, body = s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"lost-points","points":5}`)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"unknown_outcome"`) {
		t.Errorf("add points: %d %s; want 503 unknown_outcome", status, body)
	}
	if got := s.rdb.ZScore(context.Background(), "leaderboard:b", "lost-points").Val(); got < 5 || got >= 6 {
		t.Errorf("the lost write's points = %v, want 5 (applied)", got)
	}
	for _, id := range []string{"lost-api-reply", "lost-form-reply"} {
		if err := s.rdb.ZScore(context.Background(), "queue:email-jobs", id).Err(); err != nil {
			t.Errorf("%s is not in the queue (%v): the test cut the reply before the write ran", id, err)
		}
	}
}
