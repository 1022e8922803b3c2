package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// An acked job answers 200 as completed (when, lease to ack, consumer, attempts), is listed
// under ?state=completed, and its page shows the completion; without
// --keep-completed-payloads its payload is not kept. One server and the Cluster.
func TestAPICompletedJob(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		s := newTestServer(t, "", rdb)
		s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"welcome-7","priority":1,"payload":{"to":"ann@example.com"}}`)
		status, body := s.postJSON(t, "/api/v1/queues/mail/poll", `{"lease_ms":30000,"consumer":"worker-3"}`)
		var d domain.Delivery
		if err := json.Unmarshal([]byte(body), &d); status != http.StatusOK || err != nil {
			t.Fatalf("poll: %d %s", status, body)
		}
		if status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/welcome-7/ack", `{"token":"`+d.Token+`"}`); status != http.StatusNoContent {
			t.Fatalf("ack: %d %s", status, body)
		}
		status, body = s.get(t, "/api/v1/queues/mail/jobs/welcome-7")
		var j domain.JobDetail
		if err := json.Unmarshal([]byte(body), &j); status != http.StatusOK || err != nil {
			t.Fatalf("GET the completed job: %d %s", status, body)
		}
		if j.State != domain.JobCompleted || j.CompletedAt == nil || j.DurationMs == nil || *j.DurationMs < 0 || j.Consumer != "worker-3" ||
			j.Attempts != 1 || j.Payload != nil || strings.Contains(body, "ann@example.com") {
			t.Errorf("completed job = %s; want state completed, completed_at, duration_ms, consumer worker-3, 1 attempt, no payload", body)
		}
		status, body = s.get(t, "/api/v1/queues/mail/jobs?state=completed")
		var page domain.JobPage
		if err := json.Unmarshal([]byte(body), &page); status != http.StatusOK || err != nil || len(page.Jobs) != 1 ||
			page.Jobs[0].ID != "welcome-7" || page.Counts.Completed != 1 {
			t.Errorf("completed list: %d %s; want welcome-7, counted", status, body)
		}
		status, body = s.get(t, "/api/v1/queues/mail/jobs?state=completed&q=welcome")
		if status != http.StatusOK || !strings.Contains(body, `"id":"welcome-7"`) {
			t.Errorf("completed search: %d %s; want welcome-7 by its id", status, body)
		}
		status, body = s.get(t, "/queues/mail/jobs/welcome-7")
		if status != http.StatusOK || !strings.Contains(body, `data-testid="job-completed-at"`) || !strings.Contains(body, "worker-3") ||
			!strings.Contains(body, `data-testid="job-payload-not-kept"`) || strings.Contains(body, `data-testid="job-delete"`) {
			t.Errorf("job page of a completed job: %d; want its completion, consumer, payload not kept, no delete", status)
		}
		status, body = s.get(t, "/queues/mail/jobs?state=completed")
		if status != http.StatusOK || !strings.Contains(body, `data-testid="tab-completed"`) || strings.Contains(body, `data-testid="bulk-bar"`) {
			t.Errorf("completed tab: %d; want the tab, no bulk actions", status)
		}
	})
}

// With --keep-completed-payloads a completed job's payload is shown under the same rules as
// a waiting job's: hidden from a reader who is not an admin while an admin token is set.
func TestCompletedPayloadFollowsSecretRules(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	w := newTestWiring(t, rdb, "s3cret", wiringOptions{completed: domain.CompletedPolicy{Keep: 10, MaxAge: domain.DefaultCompletedMaxAge, Payloads: true}})
	s := serveWiring(t, rdb, w)
	auth := []string{"Authorization", "Bearer s3cret"}
	s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"reset-1","priority":1,"payload":{"password":"hunter2"}}`, auth...)
	status, body := s.postJSON(t, "/api/v1/queues/mail/poll", `{"lease_ms":30000}`, auth...)
	var d domain.Delivery
	if err := json.Unmarshal([]byte(body), &d); status != http.StatusOK || err != nil {
		t.Fatalf("poll: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/reset-1/ack", `{"token":"`+d.Token+`"}`, auth...); status != http.StatusNoContent {
		t.Fatalf("ack: %d %s", status, body)
	}
	status, body, _ = s.do(t, http.MethodGet, "/api/v1/queues/mail/jobs/reset-1", "", "", auth...)
	if status != http.StatusOK || !strings.Contains(body, "hunter2") || !strings.Contains(body, `"state":"completed"`) {
		t.Errorf("admin reads the completed job: %d %s; want its payload", status, body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs/reset-1")
	if status != http.StatusOK || strings.Contains(body, "hunter2") || !strings.Contains(body, `"payload_hidden":true`) {
		t.Errorf("anonymous reads the completed job: %d %s; want the payload hidden", status, body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs?state=completed&q=hunter")
	if status != http.StatusOK || strings.Contains(body, `"reset-1"`) {
		t.Errorf("anonymous search of completed payloads: %d %s; want no payload match", status, body)
	}
}
