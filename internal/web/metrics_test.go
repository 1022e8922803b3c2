package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/zpulse/zpulse/internal/domain"
)

// scrape reads /metrics as Prometheus does and returns every sample by its series
// (`name{label="value",...}`, labels sorted).
func scrape(t *testing.T, s *testServer) map[string]float64 {
	t.Helper()
	status, body := s.get(t, "/metrics")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			key := name + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// TestMetricsMatchTheAPIWithNoBrowserOpen: the business series are read from Redis at scrape
// time, so with no page open they show what the API shows; the cap leaves entities out and
// says how many; HTTP requests are counted by route template.
func TestMetricsMatchTheAPIWithNoBrowserOpen(t *testing.T) {
	t.Parallel()
	var reg *prometheus.Registry
	s := newTestServerWith(t, "", nil, func(d *Deps) { reg = d.Registry })
	reg.MustRegister(&BusinessCollector{Read: s.svc.Business, Limit: 2, ErrorCounts: s.svc.CommandErrors.Counts})

	for _, body := range []string{`{"id":"a","priority":1}`, `{"id":"b","priority":1}`, `{"id":"c","priority":0}`} {
		if status, b := s.postJSON(t, "/api/v1/queues/mail/jobs", body); status != http.StatusCreated {
			t.Fatalf("enqueue: %d %s", status, b)
		}
	}
	if status, b := s.postJSON(t, "/api/v1/queues/delayed/jobs", `{"id":"later","delay_ms":3600000}`); status != http.StatusCreated {
		t.Fatalf("enqueue delayed: %d %s", status, b)
	}
	if status, b := s.postJSON(t, "/api/v1/queues/mail/poll", `{"lease_ms":30000}`); status != http.StatusOK {
		t.Fatalf("poll: %d %s", status, b)
	}
	for _, board := range []string{"b1", "b2", "b3"} {
		if status, b := s.postJSON(t, "/api/v1/boards/"+board+"/scores", `{"player":"ann","points":3}`); status != http.StatusOK {
			t.Fatalf("add points: %d %s", status, b)
		}
	}
	if err := s.svc.History.Record(context.Background()); err != nil { // what the recorder does every 10 s
		t.Fatal(err)
	}

	got := scrape(t, s)
	for _, queue := range []string{"delayed", "mail"} {
		_, body := s.get(t, "/api/v1/queues/"+queue)
		var stats domain.QueueStats
		if err := json.Unmarshal([]byte(body), &stats); err != nil {
			t.Fatal(err)
		}
		for state, want := range map[string]int64{"waiting": stats.Due, "scheduled": stats.Scheduled, "in_flight": stats.Processing, "dead": stats.Dead} {
			key := fmt.Sprintf("zpulse_queue_jobs{queue=%q,state=%q}", queue, state)
			if v, ok := got[key]; !ok || v != float64(want) {
				t.Errorf("%s = %v (present %v), the API says %d", key, v, ok, want)
			}
		}
		if _, ok := got[fmt.Sprintf("zpulse_queue_processed_total{outcome=\"completed\",queue=%q}", queue)]; !ok {
			t.Errorf("no processed total for %s", queue)
		}
	}
	if got[`zpulse_queue_jobs{queue="mail",state="waiting"}`] != 2 || got[`zpulse_queue_jobs{queue="mail",state="in_flight"}`] != 1 {
		t.Errorf("mail: 2 waiting and 1 in flight expected, metrics %v", got)
	}
	// Three boards, a cap of two: the first two by name, and the third counted as dropped.
	if got[`zpulse_board_players{board="b1"}`] != 1 || got[`zpulse_board_players{board="b2"}`] != 1 || got[`zpulse_metrics_entities_dropped{kind="board"}`] != 1 {
		t.Errorf("boards under a cap of 2: b1 %v, b2 %v, dropped %v", got[`zpulse_board_players{board="b1"}`], got[`zpulse_board_players{board="b2"}`], got[`zpulse_metrics_entities_dropped{kind="board"}`])
	}
	if _, ok := got[`zpulse_board_players{board="b3"}`]; ok {
		t.Error("b3 reported beyond the cap")
	}
	if _, ok := got["zpulse_locks_held{}"]; !ok {
		t.Error("no zpulse_locks_held")
	}
	if got[`zpulse_metrics_read_error{}`] != 0 {
		t.Error("the scrape says it could not read Redis")
	}
	if n := got[`zpulse_http_requests_total{code="201",host="",method="POST",url="/api/v1/queues/:queue/jobs"}`]; n != 4 {
		t.Errorf("HTTP requests of the enqueue route with 201: %v, want 4 (by route template)", n)
	}
}
