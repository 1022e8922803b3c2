package web

import (
	"context"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/views"
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
		{"?period=daily", "Players 7", "history.board.1h.daily%3Apc"},
		{"?period=weekly", "Players 2", "history.board.1h.weekly%3Apc"},
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
		// The page's live connection opens (a topic holds only A-Z a-z 0-9 : . _ -: one with
		// '@' was refused with 400, and the whole page stayed still) and its chart is pushed
		// with the period's players.
		frame := liveFrame(t, s, html.UnescapeString(regexpFind(t, body, `ws-connect="([^"]+)"`)), views.HistoryChartID(domain.HistoryBoard, "pc"))
		if !strings.Contains(frame, c.players) {
			t.Errorf("/boards/pc%s: the live chart lacks %q", c.query, c.players)
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
	for _, bad := range []string{"history.board.1h.hourly:pc", "history.board.1h.:pc", "history.board.1h.all:pc", "history.queue.1h.weekly:q", "history.board.1h:pc@weekly"} {
		if _, ok := panels.History.Parse(bad); ok {
			t.Errorf("%s parsed", bad)
		}
	}
}

// liveFrame opens a page's live connection (its ws-connect path) and returns the first frame
// that holds the element id, ticking the watcher until one comes.
func liveFrame(t *testing.T, s *testServer, path, id string) string {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL, "http")+path, http.Header{"Origin": {s.URL}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("open %s: %v (%d)", path, err, status)
	}
	defer c.Close()
	done := make(chan struct{})
	defer close(done)
	go func() { // the watcher ticks until the frame is read (the first tick may precede the subscription)
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
				s.watcher.Tick(context.Background())
			}
		}
	}()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			break
		}
		if strings.Contains(string(msg), `id="`+id+`"`) {
			return string(msg)
		}
	}
	t.Fatalf("no live frame of %s on %s", id, path)
	return ""
}
