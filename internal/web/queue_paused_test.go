package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// A paused queue says so everywhere: in GET /api/v1/queues/:queue, in every entry
// of GET /api/v1/queues, as a badge in /queues, the overview, its jobs list, its search and
// each of its jobs' pages, and in zpulse_queue_paused.
func TestPausedQueueSaysSoEverywhere(t *testing.T) {
	var reg *prometheus.Registry
	s := newTestServerWith(t, "", nil, func(d *Deps) { reg = d.Registry })
	reg.MustRegister(&BusinessCollector{Read: s.svc.Business, Limit: 10})
	for _, q := range []string{"mail", "sms"} {
		if status, b := s.postJSON(t, "/api/v1/queues/"+q+"/jobs", `{"id":"a","priority":1}`); status != http.StatusCreated {
			t.Fatalf("enqueue: %d %s", status, b)
		}
	}
	if status, b := s.postJSON(t, "/api/v1/queues/mail/pause", ``); status != http.StatusOK && status != http.StatusNoContent {
		t.Fatalf("pause: %d %s", status, b)
	}

	for q, want := range map[string]bool{"mail": true, "sms": false} {
		_, body := s.get(t, "/api/v1/queues/"+q)
		var raw map[string]any
		if err := json.Unmarshal([]byte(body), &raw); err != nil {
			t.Fatal(err)
		}
		if raw["paused"] != want {
			t.Errorf("GET /api/v1/queues/%s: paused = %v, want %v (%s)", q, raw["paused"], want, body)
		}
	}
	_, body := s.get(t, "/api/v1/queues")
	var list struct {
		Queues []map[string]any `json:"queues"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Queues) != 2 {
		t.Fatalf("queues: %s", body)
	}
	for _, q := range list.Queues {
		if q["paused"] != (q["queue"] == "mail") {
			t.Errorf("GET /api/v1/queues: %v paused = %v", q["queue"], q["paused"])
		}
	}

	for _, page := range []string{"/queues", "/", "/queues/mail/jobs", "/queues/mail/jobs/a", "/queues/mail/jobs?q=a"} {
		status, html := s.get(t, page)
		if status != http.StatusOK || strings.Count(html, `data-testid="paused-badge"`) != 1 {
			t.Errorf("%s: %d, %d paused badges, want 1", page, status, strings.Count(html, `data-testid="paused-badge"`))
		}
	}
	for _, page := range []string{"/queues/sms/jobs", "/queues/sms/jobs/a"} {
		if status, html := s.get(t, page); status != http.StatusOK || strings.Contains(html, `data-testid="paused-badge"`) {
			t.Errorf("%s: %d, a running queue's page shows the paused badge", page, status)
		}
	}

	got := scrape(t, s)
	if got[`zpulse_queue_paused{queue="mail"}`] != 1 {
		t.Errorf("zpulse_queue_paused{mail} = %v, want 1", got[`zpulse_queue_paused{queue="mail"}`])
	}
	if v, ok := got[`zpulse_queue_paused{queue="sms"}`]; !ok || v != 0 {
		t.Errorf("zpulse_queue_paused{sms} = %v (present %v), want 0", v, ok)
	}
	if err := s.queues.SetPaused(t.Context(), "mail", false); err != nil {
		t.Fatal(err)
	}
	if got := scrape(t, s); got[`zpulse_queue_paused{queue="mail"}`] != 0 {
		t.Error("zpulse_queue_paused stays 1 after the resume")
	}
}
