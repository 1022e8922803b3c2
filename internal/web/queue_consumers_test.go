package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Who is consuming and how long jobs take, through the API and the pages: a poll
// names its consumer (else its address counts), the consumers API and the queue page list
// them with their leases and acks and nacks (addresses hidden from anonymous viewers when an
// admin token is set), the job shows its attempt's duration, and /metrics has the
// lease-to-ack histogram.
func TestConsumersAndDurationsThroughTheAPIAndPages(t *testing.T) {
	rdb := redistest.Client(t)
	clock := domain.NewManualClock(testNow.Add(time.Second))
	w := newTestWiring(t, rdb, "secret", wiringOptions{clock: clock})
	w.deps.Registry.MustRegister(&BusinessCollector{Read: w.svc.Business, Limit: 10})
	s := serveWiring(t, rdb, w)
	admin := []string{"Authorization", "Bearer secret"}
	for _, id := range []string{"a", "b"} {
		if status, b := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"`+id+`","priority":1}`, admin...); status != http.StatusCreated {
			t.Fatalf("enqueue: %d %s", status, b)
		}
	}
	if status, b := s.postJSON(t, "/api/v1/queues/mail/poll", `{"lease_ms":30000,"consumer":"w 1"}`, admin...); status != http.StatusBadRequest || !strings.Contains(b, "consumer name must be") {
		t.Errorf("a bad consumer name: %d %s, want 400 saying what a name is", status, b)
	}
	poll := func(body string) domain.Delivery {
		t.Helper()
		status, b := s.postJSON(t, "/api/v1/queues/mail/poll", body, admin...)
		var d domain.Delivery
		if status != http.StatusOK || json.Unmarshal([]byte(b), &d) != nil {
			t.Fatalf("poll %s: %d %s", body, status, b)
		}
		return d
	}
	a := poll(`{"lease_ms":30000,"consumer":"w1"}`)
	b := poll(`{"lease_ms":30000}`) // no name: the client's address
	clock.Advance(1500 * time.Millisecond)
	if status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/"+a.ID+"/ack", `{"token":"`+a.Token+`"}`, admin...); status != http.StatusNoContent {
		t.Fatalf("ack: %d %s", status, body)
	}
	if status, body := s.postJSON(t, "/api/v1/queues/mail/jobs/"+b.ID+"/nack", `{"token":"`+b.Token+`","error":"smtp"}`, admin...); status != http.StatusOK {
		t.Fatalf("nack: %d %s", status, body)
	}

	list := func(header ...string) map[string]map[string]any {
		t.Helper()
		status, body, _ := s.do(t, http.MethodGet, "/api/v1/queues/mail/consumers", "", "", header...)
		var out struct {
			Consumers []map[string]any `json:"consumers"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil {
			t.Fatalf("consumers: %d %s", status, body)
		}
		m := map[string]map[string]any{}
		for _, c := range out.Consumers {
			m[c["consumer"].(string)] = c
		}
		return m
	}
	got := list(admin...)
	if w1 := got["w1"]; w1 == nil || w1["acks_this_minute"] != 1.0 || w1["leases"] != 0.0 || w1["address"] != false {
		t.Errorf("w1: %v, want 1 ack this minute and no lease", w1)
	}
	if ad := got["127.0.0.1"]; ad == nil || ad["nacks_this_minute"] != 1.0 || ad["address"] != true {
		t.Errorf("the address: %v (all %v), want 127.0.0.1 with 1 nack this minute", ad, got)
	}
	if got := list(); got["hidden"] == nil || got["127.0.0.1"] != nil || got["w1"] == nil {
		t.Errorf("an anonymous caller sees %v: want the name and the address hidden", got)
	}
	status, page := s.get(t, "/queues/mail")
	if status != http.StatusOK || !strings.Contains(page, `data-consumer="w1"`) || !strings.Contains(page, `data-consumer="hidden"`) || strings.Contains(page, "127.0.0.1") {
		t.Errorf("the queue page (%d) does not list w1 and a hidden address, or shows the address", status)
	}

	_, body := s.get(t, "/api/v1/queues/mail/jobs/"+b.ID)
	var job domain.JobDetail
	if err := json.Unmarshal([]byte(body), &job); err != nil || len(job.Errors) != 1 || job.Errors[0].DurationMs == nil || *job.Errors[0].DurationMs != 1500 {
		t.Errorf("the nacked job: %s, want its attempt's duration_ms 1500", body)
	}
	if status, page := s.get(t, "/queues/mail/jobs/"+b.ID); status != http.StatusOK || !strings.Contains(page, "ran 1.5 s") {
		t.Errorf("the job page (%d) does not show the attempt's duration", status)
	}
	if n := scrape(t, s)[`zpulse_job_duration_seconds{queue="mail"}`]; n != 1 {
		t.Errorf("zpulse_job_duration_seconds{mail} counts %v acks, want 1", n)
	}
}
