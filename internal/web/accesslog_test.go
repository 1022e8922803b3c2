package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/static"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// --access-log: all logs pages at INFO and static files and probes at DEBUG; errors keeps
// statuses from 400 on; off logs no request.
func TestAccessLogModes(t *testing.T) {
	t.Parallel()
	css := "/static/" + static.Path("app.css")
	for mode, want := range map[string][]string{
		AccessLogAll: {`level=INFO msg=request method=GET uri=/boards status=200`, `level=DEBUG msg=request method=GET uri=` + css + ` status=200`,
			`level=DEBUG msg=request method=GET uri=/readyz`, `level=DEBUG msg=request method=GET uri=/healthz`, `uri=/nope status=404`},
		AccessLogErrors: {`level=INFO msg=request method=GET uri=/nope status=404`},
		AccessLogOff:    nil,
	} {
		logs := &lockedBuffer{}
		s := newFakeServer(t, "", nil, func(d *Deps) {
			d.AccessLog = mode
			d.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		for _, path := range []string{"/boards", css, "/readyz", "/healthz", "/nope"} {
			s.get(t, path)
		}
		got := logs.String()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", mode, w, got)
			}
		}
		if n := strings.Count(got, "msg=request "); n != len(want) {
			t.Errorf("%s: %d requests logged, want %d:\n%s", mode, n, len(want), got)
		}
	}
}

// The JSON access log says the time a request took with its unit: latency_ms, a number of
// milliseconds.
func TestAccessLogLatencyHasAUnit(t *testing.T) {
	logs := &lockedBuffer{}
	s := newTestServerWith(t, "", nil, func(d *Deps) {
		d.AccessLog = AccessLogAll
		d.Log = slog.New(slog.NewJSONHandler(logs, nil))
	})
	s.get(t, "/boards")
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(logs.String(), "\n", 2)[0]), &line); err != nil {
		t.Fatalf("the access log's line is not JSON: %v\n%s", err, logs.String())
	}
	if ms, ok := line["latency_ms"].(float64); !ok || ms <= 0 || ms > 60_000 {
		t.Errorf("latency_ms = %#v, want a number of milliseconds", line["latency_ms"])
	}
	if _, ok := line["latency"]; ok {
		t.Errorf("the line still has a unitless latency: %v", line)
	}
}
