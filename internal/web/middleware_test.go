package web

import (
	"context"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// countingWatcher counts the nudges the HTTP layer gives the watcher.
type countingWatcher struct {
	Watcher
	nudges atomic.Int64
}

func (w *countingWatcher) Nudge() { w.nudges.Add(1); w.Watcher.Nudge() }

// Every successful change, through the API or a form, nudges the watcher once; reads, bad
// input, refused access and a poll that found nothing do not.
func TestChangesNudgeTheWatcher(t *testing.T) {
	t.Parallel()
	var counter *countingWatcher
	f := &fakes{}
	f.Leaderboards.AddPointsFn = func(_ context.Context, _, player string, points int64) (domain.Entry, error) {
		return domain.Entry{Rank: 1, Player: player, Score: points}, nil
	}
	f.Leaderboards.TopFn = func(_ context.Context, board string, _ domain.Period, _ int) (domain.BoardTop, error) {
		return domain.BoardTop{Board: board, Entries: []domain.Entry{}}, nil
	}
	s := newFakeServer(t, "", f, func(d *Deps) {
		counter = &countingWatcher{Watcher: d.Watcher}
		d.Watcher = counter
	})
	for _, tc := range []struct {
		name    string
		request func(t *testing.T) int
		status  int
		nudges  int64
	}{
		{"API change", func(t *testing.T) int {
			status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`)
			return status
		}, http.StatusOK, 1},
		{"API read", func(t *testing.T) int { status, _ := s.get(t, "/api/v1/boards/b/top"); return status }, http.StatusOK, 0},
		{"API bad input", func(t *testing.T) int {
			status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1.5}`)
			return status
		}, http.StatusBadRequest, 0},
		{"API poll of an empty queue", func(t *testing.T) int {
			status, _ := s.postJSON(t, "/api/v1/queues/empty/poll", ``)
			return status
		}, http.StatusNoContent, 0},
		{"API delete", func(t *testing.T) int {
			status, _, _ := s.do(t, http.MethodDelete, "/api/v1/boards/b/players/a", "", "")
			return status
		}, http.StatusNoContent, 1},
		{"page", func(t *testing.T) int { status, _ := s.get(t, "/boards/b"); return status }, http.StatusOK, 0},
		{"form change", func(t *testing.T) int {
			status, _, _ := s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"a"}, "points": {"5"}}, "HX-Request", "true")
			return status
		}, http.StatusOK, 1},
		{"form bad input", func(t *testing.T) int {
			status, _, _ := s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"a"}, "points": {"x"}}, "HX-Request", "true")
			return status
		}, http.StatusBadRequest, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := counter.nudges.Load()
			if status := tc.request(t); status != tc.status {
				t.Fatalf("status %d, want %d", status, tc.status)
			}
			if n := counter.nudges.Load() - before; n != tc.nudges {
				t.Errorf("%d nudges, want %d", n, tc.nudges)
			}
		})
	}
}

// A change refused for want of the admin token does not nudge.
func TestRefusedChangeDoesNotNudge(t *testing.T) {
	t.Parallel()
	var counter *countingWatcher
	s := newFakeServer(t, "s3cret", nil, func(d *Deps) {
		counter = &countingWatcher{Watcher: d.Watcher}
		d.Watcher = counter
	})
	if status, _ := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"a","points":1}`); status != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", status)
	}
	if status, _, _ := s.do(t, http.MethodPost, "/boards/b/points", "application/x-www-form-urlencoded", "player=a&points=1"); status < 300 || status >= 500 {
		t.Fatalf("form without a session: %d", status)
	}
	if n := counter.nudges.Load(); n != 0 {
		t.Errorf("%d nudges, want 0", n)
	}
}
