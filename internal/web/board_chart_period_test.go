package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
)

// The board page's Players chart follows the period tab (issue 34.3): on "This week" it
// charts the weekly board's players, not the all-time board's, and its live topic says so.
func TestBoardChartFollowsThePeriod(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.do(t, http.MethodPut, "/api/v1/boards/pc", "application/json", `{"periods":["daily","weekly"]}`)
	for _, p := range []string{"ann", "bob", "cy", "dee", "eve"} {
		s.postJSON(t, "/api/v1/boards/pc/scores", `{"player":"`+p+`","points":5}`)
	}
	if status, _, _ := s.do(t, http.MethodDelete, "/api/v1/boards/pc?period=weekly", "", ""); status != http.StatusOK {
		t.Fatalf("reset weekly: %d", status)
	}
	s.postJSON(t, "/api/v1/boards/pc/scores", `{"player":"fay","points":5}`)
	s.postJSON(t, "/api/v1/boards/pc/scores", `{"player":"gus","points":5}`)
	if err := s.svc.History.Record(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query, players, topic string
	}{
		{"", "Players 7", "history.board.1h%3Apc\""},
		{"?period=daily", "Players 7", "history.board.1h%3Apc%40daily"},
		{"?period=weekly", "Players 2", "history.board.1h%3Apc%40weekly"},
	} {
		status, body := s.get(t, "/boards/pc"+c.query)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", c.query, status)
		}
		if !strings.Contains(body, c.players) {
			t.Errorf("/boards/pc%s: the chart lacks %q", c.query, c.players)
		}
		for _, wrong := range []string{"Players today", "Players this week", "Players this month"} {
			if strings.Contains(body, wrong) {
				t.Errorf("/boards/pc%s charts %q beside its period's players", c.query, wrong)
			}
		}
		if !strings.Contains(body, "topic="+c.topic) && !strings.Contains(body, c.topic) {
			t.Errorf("/boards/pc%s does not subscribe to %s", c.query, c.topic)
		}
	}
	if _, body := s.get(t, "/boards/pc?period=weekly"); strings.Contains(body, "Players 7") {
		t.Error(`"This week" still charts the all-time players`)
	}
	// The live topic round-trips its period, and a topic with a period that is none is refused.
	cp := panels.ChartParams{Kind: domain.HistoryBoard, Name: "pc", Range: domain.HistoryHour, Period: domain.Weekly}
	if got, ok := panels.History.Parse(panels.History.Topic(cp)); !ok || got != cp {
		t.Errorf("topic round trip: %+v %v", got, ok)
	}
	for _, bad := range []string{"history.board.1h:pc@hourly", "history.board.1h:pc@", "history.queue.1h:q@weekly"} {
		if _, ok := panels.History.Parse(bad); ok {
			t.Errorf("%s parsed", bad)
		}
	}
}
