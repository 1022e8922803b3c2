package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// A bad job type is refused with 400 naming type and saying what is allowed: empty, 65
// characters, invalid UTF-8, control characters; 64 characters of any script are taken.
func TestAPIEnqueueRefusesABadJobType(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	for name, typ := range map[string]string{
		"empty":         `""`,
		"65 characters": `"` + strings.Repeat("é", 65) + `"`,
		"invalid UTF-8": "\"mail\xff\"",
		"escaped NUL":   `"mail\u0000send"`,
		"newline":       `"mail\nsend"`,
		"bell":          `"mail\u0007"`,
		"not a string":  `7`,
	} {
		status, body := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"priority":1,"type":`+typ+`}`)
		if status != http.StatusBadRequest || !strings.Contains(body, `"field":"type"`) {
			t.Errorf("%s: %d %s; want 400 naming type", name, status, body)
			continue
		}
		if name != "not a string" && name != "invalid UTF-8" && !strings.Contains(body, "1 to 64 characters of printable UTF-8") {
			t.Errorf("%s: %s; want what is allowed", name, body)
		}
	}
	status, body := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"priority":1,"type":"`+strings.Repeat("é", 64)+`"}`)
	if status != http.StatusCreated {
		t.Errorf("64 characters: %d %s", status, body)
	}
}

// A job's type shows in the enqueue's answer, the delivery, the job's answer and page, and
// the lists (API and page); the enqueue form takes it.
func TestJobTypeShownEverywhere(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	status, body := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"j1","priority":3,"type":"email.send","payload":{"to":"ann"}}`)
	if e := answerOf[domain.Enqueued](t, status, body, http.StatusCreated); e.Type != "email.send" {
		t.Fatalf("enqueue answer: %s", body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs/j1")
	if j := answerOf[domain.JobDetail](t, status, body, http.StatusOK); j.Type != "email.send" {
		t.Fatalf("job answer: %s", body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs?state=waiting")
	if p := answerOf[domain.JobPage](t, status, body, http.StatusOK); len(p.Jobs) != 1 || p.Jobs[0].Type != "email.send" {
		t.Fatalf("job list: %s", body)
	}
	for _, page := range []string{"/queues/mail/jobs/j1", "/queues/mail/jobs?state=waiting"} {
		if status, body := s.get(t, page); status != http.StatusOK || !strings.Contains(body, `data-testid="job-type">email.send<`) {
			t.Errorf("%s: %d, type not shown", page, status)
		}
	}
	if d := s.leasedPoll(t, "mail"); d.Type != "email.send" {
		t.Fatalf("delivery: %+v", d)
	}
	status, body, _ = s.postForm(t, "/queues/mail", "/queues/mail/enqueue", url.Values{"id": {"j2"}, "type": {"report.build"}, "priority": {"1"}})
	if status/100 == 4 || status/100 == 5 {
		t.Fatalf("enqueue form: %d %s", status, body)
	}
	status, body = s.get(t, "/api/v1/queues/mail/jobs/j2")
	if j := answerOf[domain.JobDetail](t, status, body, http.StatusOK); j.Type != "report.build" {
		t.Fatalf("job enqueued by the form: %s", body)
	}
	status, body, _ = s.postForm(t, "/queues/mail", "/queues/mail/enqueue", url.Values{"type": {"a\x01b"}, "priority": {"1"}})
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity || !strings.Contains(body, "1 to 64 characters of printable UTF-8") {
		t.Errorf("enqueue form with a control character in type: %d", status)
	}
}
