package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// killOverAPI enqueues id with payload on a queue whose jobs die at their first failure and
// kills it with a leased poll and a nack carrying msg.
func (s *testServer) killOverAPI(t *testing.T, queue, id, payload, msg string, header ...string) {
	t.Helper()
	if status, body, _ := s.do(t, http.MethodPut, "/api/v1/queues/"+queue, "application/json", `{"max_attempts":1}`, header...); status != http.StatusOK {
		t.Fatalf("settings: %d %s", status, body)
	}
	s.postJSON(t, "/api/v1/queues/"+queue+"/jobs", `{"id":"`+id+`","priority":1,"payload":`+payload+`}`, header...)
	status, body := s.postJSON(t, "/api/v1/queues/"+queue+"/poll", `{"lease_ms":30000}`, header...)
	var d domain.Delivery
	if err := json.Unmarshal([]byte(body), &d); status != http.StatusOK || err != nil || d.ID != id {
		t.Fatalf("poll: %d %s", status, body)
	}
	msgJSON, _ := json.Marshal(msg)
	if status, body := s.postJSON(t, "/api/v1/queues/"+queue+"/jobs/"+id+"/nack", `{"token":"`+d.Token+`","error":`+string(msgJSON)+`}`, header...); status != http.StatusOK {
		t.Fatalf("nack: %d %s", status, body)
	}
}

// The dead list shows each job's last error, shortened, and a count by error; the API has both.
// A search's payload match shows the excerpt, the match marked, to a reader who sees
// payloads only.
func TestDeadListErrorsAndSearchExcerpts(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "s3cret", nil)
	auth := []string{"Authorization", "Bearer s3cret"}
	long := "smtp: 550 mailbox unavailable for ann@example.com " + strings.Repeat("y", 150)
	s.killOverAPI(t, "mail", "m1", `{"to":"ann@example.com"}`, long, auth...)
	s.killOverAPI(t, "mail", "m2", `{"to":"bob@example.com"}`, long, auth...)
	s.killOverAPI(t, "mail", "m3", `{"to":"cy@example.com"}`, "timeout", auth...)

	status, body := s.get(t, "/api/v1/queues/mail/jobs?state=dead")
	if status != http.StatusOK || !strings.Contains(body, `"last_error":"timeout"`) || strings.Contains(body, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy") {
		t.Errorf("dead list: %d %s; want last_error, shortened", status, body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/dead/errors")
	var g domain.DeadErrorGroups
	if err := json.Unmarshal([]byte(body), &g); status != http.StatusOK || err != nil || len(g.Groups) != 2 || g.Groups[0].Count != 2 ||
		g.Groups[0].Latest != "m2" || g.Dead != 3 {
		t.Errorf("dead errors: %d %s; want 2 groups, 2 of the long error (latest m2), then 1", status, body)
	}
	status, body = s.get(t, "/queues/mail/jobs?state=dead")
	if status != http.StatusOK || strings.Count(body, `data-testid="job-last-error"`) != 3 || strings.Count(body, `data-testid="error-group"`) != 2 {
		t.Errorf("dead page: %d; want 3 last errors and 2 groups", status)
	}

	status, body, _ = s.do(t, http.MethodGet, "/api/v1/queues/mail/jobs?state=dead&q=BOB@", "", "", auth...)
	if status != http.StatusOK || !strings.Contains(body, `"excerpt":{"before":"{\"to\":\"","match":"bob@","after":"example.com\"}"}`) {
		t.Errorf("admin search: %d %s; want the excerpt with the match", status, body)
	}
	status, body, _ = s.do(t, http.MethodGet, "/queues/mail/jobs?state=dead&q=bob@", "", "", auth...)
	if status != http.StatusOK || !strings.Contains(body, `<mark`) || !strings.Contains(body, `>bob@</mark>`) {
		t.Errorf("admin search page: %d; want the match marked", status)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs?state=dead&q=bob@")
	if status != http.StatusOK || strings.Contains(body, "excerpt") || strings.Contains(body, `"m2"`) {
		t.Errorf("anonymous search: %d %s; want no payload match and no excerpt", status, body)
	}
}
