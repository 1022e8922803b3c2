package web

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The live mode (Deps.LiveMode) shows in every page's footer, its reason behind a "Details"
// toggle, and on one line in /readyz's body.
func TestLiveModeInFooterAndReadyz(t *testing.T) {
	t.Parallel()
	mode := domain.LiveMode{Summary: "live: polling every 250 ms", Detail: "--live-notifications off"}
	s := newFakeServer(t, "", nil, func(d *Deps) { d.LiveMode = func() domain.LiveMode { return mode } })
	if status, body := s.get(t, "/readyz"); status != 200 || !strings.Contains(body, `"live":"live: polling every 250 ms (--live-notifications off)"`) {
		t.Errorf("readyz: %d %s", status, body)
	}
	status, body := s.get(t, "/locks")
	if status != 200 || !strings.Contains(body, `<span data-live-summary>live: polling every 250 ms</span>`) {
		t.Errorf("footer of /locks: %d, no summary", status)
	}
	if !strings.Contains(body, `<summary class="cursor-pointer underline decoration-dotted underline-offset-2">Details</summary><p class="mt-1 max-w-prose break-words" data-live-detail>--live-notifications off</p>`) {
		t.Errorf("footer of /locks: the reason is not behind Details")
	}
}

// When the live mode changes (notifications lost: polling), an open page's footer gets the
// new mode over its websocket with the next tick, without a reload.
func TestLiveModeChangeIsPushed(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	var mu sync.Mutex
	mode := domain.LiveMode{Summary: "live: notifications"}
	get := func() domain.LiveMode { mu.Lock(); defer mu.Unlock(); return mode }
	w := newTestWiring(t, rdb, "", wiringOptions{mode: get})
	w.deps.LiveMode = get
	s := serveWiring(t, rdb, w)
	if _, body := s.get(t, "/locks"); !strings.Contains(body, `<span data-live-summary>live: notifications</span>`) || strings.Contains(body, "data-live-detail") {
		t.Fatal("the footer of /locks does not show the mode alone")
	}
	conn, _, err := dialWS(s, nil, domain.TopicStatus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitSubscriptions(t, w.deps.Hub, func() bool { return len(w.deps.Hub.Topics()) == 1 })
	mu.Lock()
	mode = domain.LiveMode{Summary: "live: polling every 50 ms", Detail: "notifications refused"}
	mu.Unlock()
	w.watcher.Tick(context.Background())
	readFrames(t, conn, []string{`<span data-live-summary>live: polling every 50 ms</span>`, `data-live-detail>notifications refused</p>`})
}
