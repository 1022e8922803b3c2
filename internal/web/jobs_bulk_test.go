package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// enqueueMail enqueues n jobs mail-0…mail-(n-1) on queue mail through the API, every third
// to ana, with the admin token when one is given.
func enqueueMail(t *testing.T, s *testServer, n int, header ...string) {
	t.Helper()
	for i := range n {
		to := "bob@example.org"
		if i%3 == 0 {
			to = "Ana@Example.org"
		}
		body := fmt.Sprintf(`{"id":"mail-%d","priority":2,"payload":{"to":%q}}`, i, to)
		if status, b := s.postJSON(t, "/api/v1/queues/mail/jobs", body, header...); status != http.StatusCreated {
			t.Fatalf("enqueue: %d %s", status, b)
		}
	}
}

// A search over the API: id prefixes and payload text ignoring case, a cursor to go on, and,
// with an admin token set, ids only for a caller without it (payloads_searched false).
func TestAPISearchJobs(t *testing.T) {
	s := newTestServer(t, "s3cret", nil)
	admin := []string{"Authorization", "Bearer s3cret"}
	enqueueMail(t, s, 12, admin...)
	status, body, _ := s.do(t, http.MethodGet, "/api/v1/queues/mail/jobs?q=ana%40example&limit=3", "", "", admin...)
	page := answerOf[domain.JobSearchPage](t, status, body, http.StatusOK)
	if len(page.Jobs) != 3 || page.Jobs[0].ID != "mail-0" || page.Jobs[0].Match != "payload" || page.Next == "" || !page.PayloadsSearched || page.Counts.Waiting != 12 {
		t.Fatalf("first step: %s", body)
	}
	status, body, _ = s.do(t, http.MethodGet, "/api/v1/queues/mail/jobs?q=ana%40example&limit=3&cursor="+url.QueryEscape(page.Next), "", "", admin...)
	page = answerOf[domain.JobSearchPage](t, status, body, http.StatusOK)
	if len(page.Jobs) != 1 || page.Jobs[0].ID != "mail-9" || page.Next != "" {
		t.Fatalf("second step: %s", body)
	}
	// Without the token: ids only, so a payload's content is not revealed by matches.
	status, body = s.get(t, "/api/v1/queues/mail/jobs?q=ana")
	page = answerOf[domain.JobSearchPage](t, status, body, http.StatusOK)
	if len(page.Jobs) != 0 || page.PayloadsSearched {
		t.Fatalf("anonymous payload search: %s", body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs?q=mail-1")
	if page = answerOf[domain.JobSearchPage](t, status, body, http.StatusOK); len(page.Jobs) != 3 || page.Jobs[0].Match != "id" { // mail-1, -10, -11
		t.Fatalf("anonymous id search: %s", body)
	}
	// A list's backward cursor, or a long text, is a 400.
	_, body = s.get(t, "/api/v1/queues/mail/jobs?limit=2")
	list := answerOf[domain.JobPage](t, http.StatusOK, body, http.StatusOK)
	_, body = s.get(t, "/api/v1/queues/mail/jobs?limit=2&cursor="+url.QueryEscape(list.Next))
	list = answerOf[domain.JobPage](t, http.StatusOK, body, http.StatusOK)
	for _, q := range []string{"q=a&cursor=" + url.QueryEscape(list.Prev), "q=" + strings.Repeat("x", 201), "q=a&state=gone", "q=a&limit=0"} {
		if status, body := s.get(t, "/api/v1/queues/mail/jobs?"+q); status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, status, body)
		}
	}
}

// A bulk call over the API: by ids with per-job failures, by match; admin only.
func TestAPIBulkJobs(t *testing.T) {
	s := newTestServer(t, "s3cret", nil)
	admin := []string{"Authorization", "Bearer s3cret"}
	enqueueMail(t, s, 6, admin...)
	if status, body := s.postJSON(t, "/api/v1/queues/mail/bulk", `{"action":"dead","ids":["mail-0"]}`); status != http.StatusUnauthorized {
		t.Fatalf("without the token: %d %s", status, body)
	}
	status, body := s.postJSON(t, "/api/v1/queues/mail/bulk", `{"action":"dead","ids":["mail-0","mail-1","nope"]}`, admin...)
	res := answerOf[domain.BulkJobsResult](t, status, body, http.StatusOK)
	if res.Done != 2 || res.Failed != 1 || res.Failures[0].ID != "nope" || res.Failures[0].Reason != "not_found" {
		t.Fatalf("dead by ids: %s", body)
	}
	status, body = s.postJSON(t, "/api/v1/queues/mail/bulk", `{"action":"requeue","match":{"state":"dead","q":"ANA@"}}`, admin...)
	if res = answerOf[domain.BulkJobsResult](t, status, body, http.StatusOK); res.Done != 1 || res.Scanned != 2 || res.Next != "" {
		t.Fatalf("requeue by match: %s", body)
	}
	status, body = s.postJSON(t, "/api/v1/queues/mail/bulk", `{"action":"delete","match":{"state":"waiting"}}`, admin...)
	if res = answerOf[domain.BulkJobsResult](t, status, body, http.StatusOK); res.Done != 5 {
		t.Fatalf("delete every waiting job: %s", body)
	}
}

// Retry with an edit over the API: the job waits again with its new payload and priority,
// its history says what changed; no body requeues unchanged; a job not dead is a 404.
func TestAPIRetryWithEdit(t *testing.T) {
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/queues/mail", "application/json", `{"kind":"priority","max_attempts":1}`)
	enqueueMail(t, s, 1)
	d := s.leasedPoll(t, "mail")
	s.postJSON(t, "/api/v1/queues/mail/jobs/mail-0/nack", `{"token":"`+d.Token+`","error":"bad address"}`)
	status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/mail-0/retry", `{"payload":{"to":"ana@example.org"},"priority":0}`)
	r := answerOf[domain.Retried](t, status, body, http.StatusOK)
	if r.Priority == nil || *r.Priority != 0 || !strings.Contains(r.Edit, "priority 0 (was 2)") {
		t.Fatalf("retry: %s", body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs/mail-0")
	j := answerOf[domain.JobDetail](t, status, body, http.StatusOK)
	if j.State != domain.JobWaiting || string(j.Payload) != `{"to":"ana@example.org"}` || len(j.Errors) != 2 || j.Errors[1].Edit != r.Edit {
		t.Fatalf("after retry: %s", body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/mail-0/retry", ``); status != http.StatusConflict || !strings.Contains(body, "is waiting") {
		t.Fatalf("retry of a waiting job: %d %s, want 409 saying it waits", status, body)
	}
	d = s.leasedPoll(t, "mail")
	if status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/mail-0/retry", ``); status != http.StatusConflict || !strings.Contains(body, "in flight") {
		t.Fatalf("retry of a job in flight: %d %s, want 409 saying so", status, body)
	}
	s.postJSON(t, "/api/v1/queues/mail/jobs/mail-0/nack", `{"token":"`+d.Token+`","error":"again"}`)
	status, body = s.postJSON(t, "/api/v1/queues/mail/jobs/mail-0/retry", ``)
	if r = answerOf[domain.Retried](t, status, body, http.StatusOK); r.Edit != "requeued by an operator, unchanged" || *r.Priority != 0 {
		t.Fatalf("retry without a body: %s", body)
	}
}

// The page flow without JavaScript: the search box finds jobs, ticked ones go to a
// confirmation that says what will happen, whose post does it and tells the outcome; the
// edit and retry form shows for admins on a dead job only, says what is wrong inline, and
// requeues with the change.
func TestBulkAndRetryPages(t *testing.T) {
	s := newTestServer(t, "", nil)
	enqueueMail(t, s, 6)
	if _, page := s.get(t, "/queues/mail"); !strings.Contains(page, `data-testid="job-search"`) {
		t.Fatal("no search box on the queue page")
	}
	status, body := s.get(t, "/queues/mail/jobs?state=waiting&q=ana")
	if status != http.StatusOK || strings.Count(body, `data-testid="job-match"`) != 2 || !strings.Contains(body, `data-testid="search-scanned">6`) {
		t.Fatalf("search page: %d", status)
	}
	status, body = s.get(t, "/queues/mail/bulk?action=dead&id=mail-0&id=mail-3")
	if status != http.StatusOK || !strings.Contains(body, "Each of the 2 selected jobs of queue mail moves to the dead set") ||
		!strings.Contains(body, `name="id" value="mail-3"`) {
		t.Fatalf("confirmation: %d %s", status, body)
	}
	if _, body := s.get(t, "/queues/mail/bulk?action=dead"); !strings.Contains(body, `data-testid="confirm-refused"`) {
		t.Fatal("nothing ticked is not refused")
	}
	status, _, h := s.postForm(t, "/queues/mail", "/queues/mail/bulk", url.Values{"action": {"dead"}, "id": {"mail-0", "mail-3", "nope"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/queues/mail" {
		t.Fatalf("bulk post: %d", status)
	}
	if _, page := s.get(t, "/queues/mail"); !strings.Contains(page, "Moved to the dead set 2 jobs. 1 failed: nope (not found).") {
		t.Fatal("no outcome on the queue page")
	}

	// Edit and retry: the form on a dead job's page, prefilled.
	_, page := s.get(t, "/queues/mail/jobs/mail-0")
	if !strings.Contains(page, `data-testid="retry-form"`) || !strings.Contains(page, `Ana@Example.org`) {
		t.Fatal("no retry form on a dead job")
	}
	if _, page := s.get(t, "/queues/mail/jobs/mail-1"); strings.Contains(page, `data-testid="retry-form"`) {
		t.Fatal("retry form on a waiting job")
	}
	status, body, _ = s.postForm(t, "/queues/mail/jobs/mail-0", "/queues/mail/jobs/mail-0/retry", url.Values{"payload": {`{"to":`}, "priority": {"12"}})
	if status != http.StatusBadRequest || !strings.Contains(body, "“Payload” must be") || !strings.Contains(body, "“Priority” must be a whole number from 0") {
		t.Fatalf("bad retry: %d", status)
	}
	// "Show the changes" answers the form again with what the new payload changes, and requeues nothing.
	status, body, _ = s.postForm(t, "/queues/mail/jobs/mail-0", "/queues/mail/jobs/mail-0/retry", url.Values{"payload": {`{"to": "ana@example.org"}`}, "priority": {"2"}, "preview": {"1"}})
	if status != http.StatusOK || !strings.Contains(body, `data-testid="retry-changes"`) || !strings.Contains(body, "/to") || !strings.Contains(body, `data-testid="job-state">Dead`) {
		t.Fatalf("preview: %d %s", status, body)
	}
	status, _, h = s.postForm(t, "/queues/mail/jobs/mail-0", "/queues/mail/jobs/mail-0/retry", url.Values{"payload": {`{"to": "ana@example.org"}`}, "priority": {"2"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/queues/mail/jobs/mail-0" {
		t.Fatalf("retry: %d", status)
	}
	_, page = s.get(t, "/queues/mail/jobs/mail-0")
	if !strings.Contains(page, `data-testid="job-state">Waiting`) || !strings.Contains(page, "payload: /to changed (25 bytes, was 24)") {
		t.Fatalf("after retry: %s", page)
	}
	status, body, _ = s.postForm(t, "/queues/mail/jobs/mail-3", "/queues/mail/jobs/mail-3/retry", url.Values{"payload": {`{"to":"Ana@Example.org"}`}, "run_at": {testNow.Add(time.Hour).Format(time.RFC3339)}})
	if status != http.StatusBadRequest || !strings.Contains(body, "priority queue") {
		t.Fatalf("run-at on a priority queue: %d", status)
	}
}

// With an admin token set, an anonymous viewer sees the retry form disabled and without the
// payload, and the bulk actions disabled; its page search matches ids only.
func TestBulkAndRetryPagesAnonymous(t *testing.T) {
	s := newTestServer(t, "s3cret", nil)
	admin := []string{"Authorization", "Bearer s3cret"}
	s.do(t, http.MethodPut, "/api/v1/queues/mail", "application/json", `{"kind":"priority","max_attempts":1}`, admin...)
	enqueueMail(t, s, 2, admin...)
	s.postJSON(t, "/api/v1/queues/mail/bulk", `{"action":"dead","ids":["mail-0"]}`, admin...)
	if _, page := s.get(t, "/queues/mail/jobs/mail-0"); !strings.Contains(page, `data-testid="retry-form"`) ||
		!strings.Contains(page, `data-testid="retry-payload"></textarea>`) || !strings.Contains(page, `<fieldset disabled aria-disabled="true"`) {
		t.Fatal("retry form for an anonymous viewer: not disabled, or holds the payload")
	}
	_, page := s.get(t, "/queues/mail/jobs?state=dead&q=ana")
	if strings.Contains(page, `data-job="mail-0"`) || !strings.Contains(page, "sign in to search payloads") {
		t.Fatal("anonymous page search matched a payload")
	}
	if _, page := s.get(t, "/queues/mail/jobs?state=dead"); !strings.Contains(page, `data-can-write="false"`) || !strings.Contains(page, `data-read-only="admin"`) {
		t.Fatal("bulk bar not disabled for an anonymous viewer")
	}
	status, _, h := s.postForm(t, "/queues/mail", "/queues/mail/bulk", url.Values{"action": {"delete"}, "id": {"mail-0"}})
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Fatalf("anonymous bulk post: %d %v", status, h)
	}
}
