package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// The schedules' API: bad input is a 400 naming the field, nothing written; a schedule is
// made (201), listed with its next run, paused, resumed, run now and deleted.
func TestSchedulesAPI(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	if code, body := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"a","priority":1}`); code != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", code, body)
	}
	for _, c := range []struct{ body, field string }{
		{`{"name":"a b","queue":"mail","every":"1m","job":{"priority":1}}`, "name"},
		{`{"name":"s","queue":"mail","every":"0s","job":{"priority":1}}`, "every"},
		{`{"name":"s","queue":"mail","every":"-1m","job":{"priority":1}}`, "every"},
		{`{"name":"s","queue":"mail","every":"soon","job":{"priority":1}}`, "every"},
		{`{"name":"s","queue":"mail","cron":"61 * * * *","job":{"priority":1}}`, "cron"},
		{`{"name":"s","queue":"mail","every":"1m","cron":"* * * * *","job":{"priority":1}}`, "every"},
		{`{"name":"s","queue":"mail","job":{"priority":1}}`, "every"},
		{`{"name":"s","queue":"mail","every":"1m","zone":"Nowhere/Else","job":{"priority":1}}`, "zone"},
		{`{"name":"s","queue":"nobody","every":"1m","job":{"priority":1}}`, "queue"},
		{`{"name":"s","queue":"mail","every":"1m","job":{"delay_ms":1000}}`, "job.priority"},
		{`{"name":"s","queue":"mail","every":"1m","job":{"priority":12}}`, "job.priority"},
		{`{"name":"s","queue":"mail","every":"1m","job":{"priority":1,"type":""}}`, "job.type"},
		{`{"name":"s","queue":"mail","every":"1m","job":{"priority":1,"payload":{"x":1}},"extra":1}`, ""},
	} {
		code, body := s.postJSON(t, "/api/v1/schedules", c.body)
		var env struct {
			Error struct{ Code, Field string }
		}
		_ = json.Unmarshal([]byte(body), &env)
		if code != http.StatusBadRequest || (c.field != "" && env.Error.Field != c.field) {
			t.Errorf("%s: %d %s; want 400 naming %q", c.body, code, body, c.field)
		}
	}
	if code, body := s.get(t, "/api/v1/schedules"); code != http.StatusOK || body != `{"schedules":[]}`+"\n" {
		t.Fatalf("list after refusals: %d %s", code, body)
	}
	code, body := s.postJSON(t, "/api/v1/schedules", `{"name":"nightly-digest","queue":"mail","every":"1m","job":{"type":"digest","priority":3,"payload":{"to":"all"}}}`)
	if code != http.StatusCreated || !strings.Contains(body, `"every":"1m"`) || !strings.Contains(body, `"zone":"UTC"`) || !strings.Contains(body, `"next_run":"`) {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := s.postJSON(t, "/api/v1/schedules", `{"name":"nightly-digest","queue":"mail","cron":"0 3 * * *","job":{"priority":3}}`); code != http.StatusConflict {
		t.Fatalf("the same name again: %d %s", code, body)
	}
	code, body = s.get(t, "/api/v1/schedules")
	if code != http.StatusOK || !strings.Contains(body, `"name":"nightly-digest"`) || !strings.Contains(body, `"last_run":null`) || !strings.Contains(body, `"paused":false`) {
		t.Fatalf("list: %d %s", code, body)
	}
	if code, body := s.postJSON(t, "/api/v1/schedules/nightly-digest/pause", ``); code != http.StatusOK || !strings.Contains(body, `"paused":true`) || !strings.Contains(body, `"next_run":null`) {
		t.Fatalf("pause: %d %s", code, body)
	}
	code, body = s.postJSON(t, "/api/v1/schedules/nightly-digest/run", ``)
	if code != http.StatusOK || !strings.Contains(body, `"enqueued":true`) || !strings.Contains(body, `"job_id":"nightly-digest@`) {
		t.Fatalf("run now: %d %s", code, body)
	}
	if code, body := s.postJSON(t, "/api/v1/schedules/nightly-digest/resume", ``); code != http.StatusOK || !strings.Contains(body, `"paused":false`) || !strings.Contains(body, `"last_job":"nightly-digest@`) {
		t.Fatalf("resume: %d %s", code, body)
	}
	if code, body := s.postJSON(t, "/api/v1/schedules", `{"name":"weekly","queue":"mail","cron":"0 3 * * 1","zone":"Europe/Paris","job":{"priority":0}}`); code != http.StatusCreated || !strings.Contains(body, `"cron":"0 3 * * 1"`) {
		t.Fatalf("create a cron schedule: %d %s", code, body)
	}
	if code, _, _ := s.do(t, http.MethodDelete, "/api/v1/schedules/nightly-digest", "", ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := s.do(t, http.MethodDelete, "/api/v1/schedules/nightly-digest", "", ""); code != http.StatusNotFound {
		t.Fatalf("delete again: %d", code)
	}
	if code, _ := s.postJSON(t, "/api/v1/schedules/bad%20name/run", ``); code != http.StatusBadRequest {
		t.Fatalf("run a bad name: %d", code)
	}
}

// The Schedules page: in the nav, live on topic "schedules"; the form's errors sit beside the
// field, naming its label; a made schedule is listed with its next run, and its buttons pause,
// resume, run now and (after a confirmation) delete it.
func TestSchedulesPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	if code, body := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"a","priority":1}`); code != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", code, body)
	}
	code, body := s.get(t, "/schedules")
	if code != http.StatusOK || !strings.Contains(body, `data-testid="no-schedules"`) || !strings.Contains(body, `href="/schedules" aria-current="page"`) ||
		!strings.Contains(body, `id="`+views.SchedulesPanelID+`"`) || !strings.Contains(body, domain.TopicSchedules) {
		t.Fatalf("empty page: %d %s", code, body)
	}
	for _, c := range []struct {
		form  url.Values
		label string
	}{
		{url.Values{"name": {"a b"}, "queue": {"mail"}, "every": {"1m"}, "priority": {"1"}}, "“Name”"},
		{url.Values{"name": {"d"}, "queue": {"mail"}, "every": {"-1m"}, "priority": {"1"}}, "“Every”"},
		{url.Values{"name": {"d"}, "queue": {"mail"}, "cron": {"61 * * * *"}, "priority": {"1"}}, "“Cron”"},
		{url.Values{"name": {"d"}, "queue": {"mail"}, "every": {"1m"}, "zone": {"Mars/Base"}, "priority": {"1"}}, "“Time zone”"},
		{url.Values{"name": {"d"}, "queue": {"mail"}, "every": {"1m"}}, "“Priority”"},
		{url.Values{"name": {"d"}, "queue": {"mail"}, "every": {"1m"}, "priority": {"1"}, "payload": {"{"}}, "“Payload”"},
	} {
		code, body, _ := s.postForm(t, "/schedules", "/schedules", c.form)
		if code != http.StatusBadRequest || !strings.Contains(body, `class="error-text"`) || !strings.Contains(body, c.label) {
			t.Errorf("%v: %d; want 400 with an inline error naming %s", c.form, code, c.label)
		}
	}
	code, _, _ = s.postForm(t, "/schedules", "/schedules", url.Values{"name": {"nightly-digest"}, "queue": {"mail"}, "every": {"1m"}, "priority": {"2"}, "payload": {`{"to":"all"}`}})
	if code != http.StatusSeeOther {
		t.Fatalf("make: %d", code)
	}
	code, body = s.get(t, "/schedules")
	if code != http.StatusOK || !strings.Contains(body, "Schedule nightly-digest is made") || !strings.Contains(body, `data-schedule="nightly-digest"`) || !strings.Contains(body, "every 1 min") {
		t.Fatalf("listed: %d %s", code, body)
	}
	if code, _, _ := s.postForm(t, "/schedules", "/schedules/nightly-digest/pause", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("pause: %d", code)
	}
	if _, body := s.get(t, "/schedules"); !strings.Contains(body, `data-testid="schedule-paused"`) {
		t.Fatalf("paused: %s", body)
	}
	if code, _, _ := s.postForm(t, "/schedules", "/schedules/nightly-digest/run", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("run now: %d", code)
	}
	if _, body := s.get(t, "/schedules"); !strings.Contains(body, "ran now: job nightly-digest@") || !strings.Contains(body, `/queues/mail/jobs/nightly-digest@`) {
		t.Fatalf("after run now: %s", body)
	}
	if code, _, _ := s.postForm(t, "/schedules", "/schedules/nightly-digest/resume", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("resume: %d", code)
	}
	if code, body := s.get(t, "/schedules/nightly-digest/delete"); code != http.StatusOK || !strings.Contains(body, "confirm-delete-schedule") {
		t.Fatalf("confirm delete: %d %s", code, body)
	}
	if code, _, _ := s.postForm(t, "/schedules/nightly-digest/delete", "/schedules/nightly-digest/delete", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := s.postForm(t, "/schedules", "/schedules/nightly-digest/run", url.Values{}); code != http.StatusBadRequest {
		t.Fatalf("run a deleted schedule: %d", code)
	}
}
