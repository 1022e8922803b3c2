package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
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
