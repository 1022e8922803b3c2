package web

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/static"
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

// HTML pages and JSON answers go out gzipped to a client that takes gzip, and plain to one
// that does not; /metrics is not compressed twice, nor the static files gzipped at start.
func TestAnswersAreCompressed(t *testing.T) {
	s := newTestServer(t, "", nil)
	for _, path := range []string{"/", "/api/v1/openapi.json"} {
		status, plain, h := s.do(t, http.MethodGet, path, "", "", "Accept-Encoding", "identity")
		if status != http.StatusOK || h.Get("Content-Encoding") != "" {
			t.Fatalf("GET %s without gzip: %d, Content-Encoding %q", path, status, h.Get("Content-Encoding"))
		}
		status, zipped, h := s.do(t, http.MethodGet, path, "", "", "Accept-Encoding", "gzip")
		if status != http.StatusOK || h.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s with gzip: %d, Content-Encoding %q, want gzip", path, status, h.Get("Content-Encoding"))
		}
		if !strings.Contains(h.Get("Vary"), "Accept-Encoding") {
			t.Errorf("GET %s: Vary %q, want Accept-Encoding", path, h.Get("Vary"))
		}
		unzipped := gunzip(t, zipped)
		if len(zipped)*3 > len(plain) || len(unzipped) < len(plain)/2 {
			t.Errorf("GET %s: %d bytes gzipped (%d unzipped) for %d plain, want under a third", path, len(zipped), len(unzipped), len(plain))
		}
	}
	// Assets gzipped at start, and the Prometheus handler's own gzip, are gzipped once.
	for _, path := range []string{"/static/" + static.Path("app.css"), "/metrics"} {
		_, body, h := s.do(t, http.MethodGet, path, "", "", "Accept-Encoding", "gzip")
		if h.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s: Content-Encoding %q, want gzip", path, h.Get("Content-Encoding"))
		}
		if b := gunzip(t, body); len(b) > 1 && b[0] == 0x1f && b[1] == 0x8b {
			t.Errorf("GET %s is gzipped twice", path)
		}
	}
}

// gunzip reads a gzipped body whole.
func gunzip(t testing.TB, body string) []byte {
	t.Helper()
	r, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return b
}
