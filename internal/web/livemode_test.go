package web

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The live mode (Deps.LiveMode) shows in every page's footer and in /readyz's body.
func TestLiveModeInFooterAndReadyz(t *testing.T) {
	t.Parallel()
	const mode = "live: polling every 250 ms (--live-notifications off)"
	s := newFakeServer(t, "", nil, func(d *Deps) { d.LiveMode = func() string { return mode } })
	if status, body := s.get(t, "/readyz"); status != 200 || !strings.Contains(body, `"live":"`+mode+`"`) {
		t.Errorf("readyz: %d %s", status, body)
	}
	if status, body := s.get(t, "/locks"); status != 200 || !strings.Contains(body, `<p id="live-mode" data-live-mode>`+mode+"</p>") {
		t.Errorf("footer of /locks: %d, no %q", status, mode)
	}
}

// When the live mode changes (notifications lost: polling), an open page's footer gets the
// new mode over its websocket with the next tick, without a reload.
func TestLiveModeChangeIsPushed(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	var mu sync.Mutex
	mode := "live: notifications"
	get := func() string { mu.Lock(); defer mu.Unlock(); return mode }
	w := newTestWiring(t, rdb, "", wiringOptions{mode: get})
	w.deps.LiveMode = get
	s := serveWiring(t, rdb, w)
	if _, body := s.get(t, "/locks"); !strings.Contains(body, `<p id="live-mode" data-live-mode>live: notifications</p>`) {
		t.Fatal("the footer of /locks does not show the mode")
	}
	conn, _, err := dialWS(s, nil, domain.TopicStatus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitSubscriptions(t, w.deps.Hub, func() bool { return len(w.deps.Hub.Topics()) == 1 })
	mu.Lock()
	mode = "live: polling every 50 ms (notifications refused)"
	mu.Unlock()
	w.watcher.Tick(context.Background())
	readFrames(t, conn, []string{`<p id="live-mode" data-live-mode>live: polling every 50 ms (notifications refused)</p>`})
}
