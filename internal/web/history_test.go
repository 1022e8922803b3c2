package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// The queue, limiter and board pages chart their history over the range asked, subscribe to
// its topic, and refuse a range they do not know with a 400 page.
func TestHistoryOnPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"a","priority":1}`)
	s.postJSON(t, "/api/v1/boards/game/scores", `{"player":"ann","points":1}`)
	if err := s.svc.History.Record(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, topic, id string }{
		{"/queues/mail", "history.queue.1h%3Amail", views.HistoryChartID(domain.HistoryQueue, "mail")},
		{"/queues/mail?range=24h", "history.queue.24h%3Amail", views.HistoryChartID(domain.HistoryQueue, "mail")},
		{"/boards/game", "history.board.1h%3Agame", views.HistoryChartID(domain.HistoryBoard, "game")},
		{"/limiters/default?range=24h", "history.limiter.24h%3Adefault", views.HistoryChartID(domain.HistoryLimiter, "default")},
	} {
		status, body := s.get(t, c.path)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", c.path, status)
		}
		for _, want := range []string{"topic=" + c.topic, `id="` + c.id + `"`, `data-testid="history"`, `aria-current="true"`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %s", c.path, want)
			}
		}
	}
	// Recorded: the queue's gauges are drawn, each column focusable and titled.
	_, body := s.get(t, "/queues/mail")
	for _, want := range []string{`<polyline`, `tabindex="0"`, "<title>", "Waiting 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the queue's chart lacks %s", want)
		}
	}
	if strings.Contains(body, "style=") {
		t.Error("the chart carries an inline style, which the CSP forbids")
	}
	if status, body := s.get(t, "/queues/mail?range=7d"); status != http.StatusBadRequest || !strings.Contains(body, `range must be`) {
		t.Errorf("a bad range: %d", status)
	}
}
