package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
	"github.com/zpulse/zpulse/views"
)

// A check of one of a limiter's clients reaches its page as that client's row (and the chart,
// once the recorded checks are flushed), not as the whole panel: the panel's parts
// (views.limiterPartID). The other client's row is in no frame.
func TestALimiterCheckSendsItsClientsRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow)
	w, srv, _ := countingServer(t, rdb, clock)
	lim := w.svc.Limiters
	if _, err := lim.SetPolicy(ctx, domain.LimitPolicy{Name: "api", Algorithm: domain.FixedWindow, Limit: 100, WindowMs: 60_000}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"client-1", "client-2"} {
		if _, err := lim.Allow(ctx, "api", c); err != nil {
			t.Fatal(err)
		}
	}
	if err := lim.Flush(ctx); err != nil { // the checks recorded: the clients are listed
		t.Fatal(err)
	}
	conn := dialPage(t, srv.URL, "/limiters/api")
	waitSubscriptions(t, w.deps.Hub, func() bool { return len(w.deps.Hub.Subscriptions()) >= 3 })
	// The panel lists the clients from its second read on (the first learns their names), each
	// its own part from then on.
	for shown := false; !shown; {
		w.watcher.Tick(ctx)
		clock.Advance(250 * time.Millisecond)
		for _, m := range framesBefore(t, conn, publishMarker(t, w)) {
			shown = shown || strings.Contains(m, `data-client="client-1"`)
		}
	}

	if _, err := lim.Allow(ctx, "api", "client-2"); err != nil {
		t.Fatal(err)
	}
	if err := lim.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	w.watcher.Tick(ctx)
	got := framesBefore(t, conn, publishMarker(t, w))
	panel := views.LimiterPanelID("api")
	all := strings.Join(got, "\n")
	switch {
	case len(got) == 0:
		t.Fatal("the check sent no frame")
	case strings.Contains(all, `id="`+panel+`"`):
		t.Errorf("the check sent the whole panel: %.300s", all)
	case !strings.Contains(all, `data-client="client-2"`) || !strings.Contains(all, `data-used="2"`):
		t.Errorf("the check's frames lack client-2's row at 2 used: %.600s", all)
	case strings.Contains(all, `data-client="client-1"`):
		t.Errorf("the check sent client-1's row too: %.600s", all)
	}
}
