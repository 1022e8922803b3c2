package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// The queue API as openapi.json describes it, with the article's test through it.
func TestQueueAPI(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"id":"newsletter","priority":5,"payload":{"list":"weekly"}}`, 201},
		{`{"id":"password-reset","priority":0}`, 201},
		{`{"id":"password-reset","priority":3}`, 409},
		{`{"id":"x","priority":10}`, 400},
		{`{"id":"x","priority":1.5}`, 400},
		{`{"id":"x"}`, 400},
		{`{"id":"x","priority":1,"delay_ms":10}`, 400},
		{`{"id":"","priority":1}`, 400},
		{`{"priority":1,"colour":"red"}`, 400},
		{`{"priority":1,"payload":` + `"` + strings.Repeat("x", 64<<10) + `"}`, 400},
	} {
		t.Run(c.body, func(t *testing.T) {
			if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs", c.body); status != c.want {
				t.Errorf("enqueue %.60s: %d %s, want %d", c.body, status, body, c.want)
			} else if status == 400 && !strings.Contains(body, `"code":"invalid"`) {
				t.Errorf("enqueue %.60s: %s, want an invalid error", c.body, body)
			}
		})
	}
	if score := s.rdb.ZScore(ctx, "queue:email-jobs", "password-reset").Val(); score >= 1e13 {
		t.Errorf("the refused enqueue moved password-reset to %v", score)
	}
	status, body := s.get(t, "/api/v1/queues/email-jobs")
	var st domain.QueueStats
	_ = json.Unmarshal([]byte(body), &st)
	if status != 200 || st.Total != 2 || st.ByPriority["0"] != 1 || st.ByPriority["5"] != 1 || st.OldestAgeMs == nil {
		t.Errorf("stats: %d %s", status, body)
	}
	var got []string
	for range 3 {
		status, body := s.postJSON(t, "/api/v1/queues/email-jobs/poll", "")
		if status == http.StatusNoContent {
			got = append(got, "(none)")
			continue
		}
		var d domain.Delivery
		_ = json.Unmarshal([]byte(body), &d)
		got = append(got, d.ID)
		if d.ID == "newsletter" && string(d.Payload) != `{"list":"weekly"}` {
			t.Errorf("newsletter's payload: %s", body)
		}
	}
	if strings.Join(got, ",") != "password-reset,newsletter,(none)" {
		t.Errorf("polls = %v, want password-reset, newsletter, nothing", got)
	}

	// At-least-once over the API: lease, ack with the lease's token; the same ack again (a
	// retry) is a 204, another token a 409, a job never leased a 404.
	s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"invoice","priority":2}`)
	status, body = s.postJSON(t, "/api/v1/queues/email-jobs/poll", `{"lease_ms":30000}`)
	if status != 200 || !strings.Contains(body, `"lease_deadline"`) || !strings.Contains(body, `"attempt":1`) {
		t.Errorf("leased poll: %d %s", status, body)
	}
	var leased domain.Delivery
	if err := json.Unmarshal([]byte(body), &leased); err != nil || len(leased.Token) != 32 {
		t.Fatalf("leased poll's token: %q, %v", leased.Token, err)
	}
	if n := s.rdb.ZCard(ctx, "{queue:email-jobs}:processing").Val(); n != 1 {
		t.Errorf("processing holds %d jobs, want 1", n)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/ack", ""); status != 400 || !strings.Contains(body, "body is empty") {
		t.Errorf("ack without a body: %d %s", status, body)
	}
	ack := `{"token":"` + leased.Token + `"}`
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/ack", ack); status != 204 {
		t.Errorf("ack: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/ack", ack); status != 204 {
		t.Errorf("the same ack again: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/invoice/ack", `{"token":"forged"}`); status != 409 || !strings.Contains(body, `"conflict"`) {
		t.Errorf("ack with another token: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs/other/ack", ack); status != 404 || !strings.Contains(body, "not in flight") {
		t.Errorf("ack of a job never leased: %d %s", status, body)
	}
	for _, c := range []struct{ body, want string }{
		{`{"lease_ms":10}`, "lease_ms must be"},
		{`{"wait_ms":1500}`, "whole seconds"},
		{`{"wait_ms":1000,"lease_ms":5000}`, "cannot be combined"},
		{`[1]`, "JSON object"},
	} {
		t.Run(c.body, func(t *testing.T) {
			if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/poll", c.body); status != 400 || !strings.Contains(body, c.want) {
				t.Errorf("poll %s: %d %s, want 400 saying %q", c.body, status, body, c.want)
			}
		})
	}

	// The delayed queue, and settings.
	if status, body := s.postJSON(t, "/api/v1/queues/delayed/jobs", `{"id":"reminder","delay_ms":1800000}`); status != 201 || !strings.Contains(body, `"run_at"`) {
		t.Errorf("schedule: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/delayed/jobs", `{"id":"r2","priority":1}`); status != 400 || !strings.Contains(body, "delayed queue") {
		t.Errorf("priority on the delayed queue: %d %s", status, body)
	}
	if status, _ := s.postJSON(t, "/api/v1/queues/delayed/poll", ""); status != 204 {
		t.Errorf("poll of delayed before the job is due: %d, want 204", status)
	}
	if status, body, _ := s.do(t, http.MethodPut, "/api/v1/queues/delayed", "application/json", `{"kind":"priority"}`); status != 409 {
		t.Errorf("kind change under a job: %d %s", status, body)
	}
	if status, body, _ := s.do(t, http.MethodPut, "/api/v1/queues/reminders", "application/json", `{"kind":"delayed","max_attempts":3}`); status != 200 || !strings.Contains(body, `"max_attempts":3`) {
		t.Errorf("settings: %d %s", status, body)
	}
	if status, body, _ := s.do(t, http.MethodDelete, "/api/v1/queues/delayed/jobs/reminder", "", ""); status != 204 {
		t.Errorf("delete: %d %s", status, body)
	}
	if status, _, _ := s.do(t, http.MethodPost, "/api/v1/queues/delayed/dead/reminder/requeue", "application/json", ""); status != 404 {
		t.Errorf("requeue of a job not dead: %d, want 404", status)
	}
	// Queues another service writes show in the list.
	s.rdb.ZAdd(ctx, "queue:java-jobs", redis.Z{Score: 1, Member: "j"})
	if _, body := s.get(t, "/api/v1/queues"); !strings.Contains(body, `"queue":"email-jobs"`) || !strings.Contains(body, `"queue":"reminders"`) {
		t.Errorf("queues: %s", body)
	}
}

// Mutating queue calls need the admin token when one is set.
func TestQueueAPINeedsAdmin(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "sekret", nil)
	for _, path := range []string{"/api/v1/queues/q/jobs", "/api/v1/queues/q/poll", "/api/v1/queues/q/jobs/a/ack"} {
		if status, _ := s.postJSON(t, path, `{}`); status != http.StatusUnauthorized {
			t.Errorf("POST %s without the token: %d, want 401", path, status)
		}
	}
	if status, _ := s.postJSON(t, "/api/v1/queues/q/jobs", `{"priority":1}`, "Authorization", "Bearer sekret"); status != 201 {
		t.Errorf("enqueue with the token: %d", status)
	}
	if status, _ := s.get(t, "/api/v1/queues/q"); status != 200 {
		t.Errorf("stats need no token: %d", status)
	}
}

// The queue page: the enqueue form with and without htmx, inline errors, the 409, the
// settings, and the dead job's requeue button.
func TestQueuePageForms(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	ctx := context.Background()
	status, page := s.get(t, "/queues/email-jobs")
	for _, want := range []string{"ZSET queue:email-jobs", "Priority queue", `topic=queue.email-jobs`, `data-priority="9"`, "Enqueue a job"} {
		if status != 200 || !strings.Contains(page, want) {
			t.Errorf("queue page lacks %s", want)
		}
	}
	status, body, _ := s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/enqueue", url.Values{"id": {"a"}, "priority": {"12"}, "payload": {"{"}}, "HX-Request", "true")
	if status != 400 || !strings.Contains(body, "from 0 (first) to 9") || !strings.Contains(body, "valid JSON") || s.rdb.Exists(ctx, "queue:email-jobs").Val() != 0 {
		t.Errorf("bad enqueue: %d", status)
	}
	status, body, _ = s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/enqueue", url.Values{"id": {"a"}, "priority": {"2"}, "payload": {`{"x":1}`}}, "HX-Request", "true")
	if status != 200 || !strings.Contains(body, "Enqueued a at priority 2.") {
		t.Errorf("enqueue with htmx: %d %s", status, body)
	}
	status, body, _ = s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/enqueue", url.Values{"id": {"a"}, "priority": {"2"}}, "HX-Request", "true")
	if status != http.StatusConflict || !strings.Contains(body, "already waiting") { // htmx swaps 409s into the form
		t.Errorf("duplicate with htmx: %d", status)
	}
	status, _, hdr := s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/enqueue", url.Values{"id": {"b"}, "priority": {"0"}})
	if status != http.StatusSeeOther || hdr.Get("Location") != "/queues/email-jobs" {
		t.Errorf("enqueue without JS: %d %s", status, hdr.Get("Location"))
	}
	if _, page = s.get(t, "/queues/email-jobs"); !strings.Contains(page, "Enqueued b at priority 0.") || !strings.Contains(page, `data-job="b"`) {
		t.Error("after the redirect: no flash or no job b in line")
	}

	// The delayed queue's form: a delay, and bad times.
	status, body, _ = s.postForm(t, "/queues/delayed", "/queues/delayed/enqueue", url.Values{"delay": {"soon"}, "run_at": {"tomorrow"}}, "HX-Request", "true")
	if status != 400 || !strings.Contains(body, "“Run after” must be a duration such as 10s, 1m30s or 500ms") || !strings.Contains(body, "RFC 3339") {
		t.Errorf("bad delayed enqueue: %d", status)
	}
	if status, body, _ = s.postForm(t, "/queues/delayed", "/queues/delayed/enqueue", url.Values{"id": {"r"}, "delay": {"30m"}}, "HX-Request", "true"); status != 200 || !strings.Contains(body, "Scheduled r for") {
		t.Errorf("delayed enqueue: %d %s", status, body)
	}
	if _, page = s.get(t, "/queues/delayed"); !strings.Contains(page, "Due and scheduled") || !strings.Contains(page, `data-job="r"`) || !strings.Contains(page, "data-at-ms=") ||
		strings.Count(page, ">r</") != 1 {
		t.Error("delayed page does not list r once, with its run-at time (data-at-ms, made relative in the browser)")
	}

	// A dead job: requeue from the page.
	s.rdb.ZAdd(ctx, "{queue:email-jobs}:dead", redis.Z{Score: 1, Member: "gone"})
	if _, page = s.get(t, "/queues/email-jobs"); !strings.Contains(page, `action="/queues/email-jobs/jobs/gone/requeue"`) {
		t.Fatal("no requeue button for the dead job")
	}
	status, _, _ = s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/jobs/gone/requeue", url.Values{}, "HX-Request", "true")
	if status != 204 || s.rdb.ZScore(ctx, "queue:email-jobs", "gone").Err() != nil {
		t.Errorf("requeue: %d", status)
	}
	status, _, _ = s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/jobs/gone/delete", url.Values{})
	if status != http.StatusSeeOther || s.rdb.ZScore(ctx, "queue:email-jobs", "gone").Err() == nil {
		t.Errorf("delete without JS: %d", status)
	}
	status, body, _ = s.postForm(t, "/queues/email-jobs", "/queues/email-jobs/settings", url.Values{"kind": {"delayed"}, "max_attempts": {"3"}}, "HX-Request", "true")
	if status != 409 && status != 400 || !strings.Contains(body, "empty it before changing its kind") {
		t.Errorf("kind change under jobs: %d", status)
	}
	// The overview lists the queues.
	if _, page = s.get(t, "/"); !strings.Contains(page, `data-queue="email-jobs"`) || !strings.Contains(page, `data-queue="delayed"`) {
		t.Error("the overview does not list the queues")
	}
}

// A blocking take (wait_ms) on a paused queue waits like one on an empty queue before its
// 204, so a consumer's loop does not spin; the job stays.
func TestQueueAPIPausedTakeWaits(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/jobs", `{"id":"a","priority":1}`); status != 201 {
		t.Fatalf("enqueue: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/pause", ``); status != 200 {
		t.Fatalf("pause: %d %s", status, body)
	}
	start := time.Now()
	if status, body := s.postJSON(t, "/api/v1/queues/email-jobs/poll", `{"wait_ms":1000}`); status != 204 {
		t.Fatalf("take on a paused queue: %d %s, want 204", status, body)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("take on a paused queue answered after %v, want its wait of 1s", waited)
	}
}
