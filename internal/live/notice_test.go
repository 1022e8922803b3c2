package live

import (
	"context"
	"sync"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// A notice (WithNotice: a partial outage, a failover) publishes the status to every page when it
// changes, and makes the watcher render every topic anew at its next poll, even one whose
// snapshot did not change (the hub then sends each page what differs from what it has): after
// a failover each open page is read again in full.
func TestNoticeChangeSendsEveryPageAnew(t *testing.T) {
	w, src, r, _, subscribe := newWatcher(t)
	var mu sync.Mutex
	notice := ""
	w.notice = func() string { mu.Lock(); defer mu.Unlock(); return notice }
	ctx := context.Background()
	page := subscribe(domain.TopicStatus, "board:a")
	src.set("board:a", 1)
	w.Tick(ctx)
	if got := read(t, page); got != "board:a=1" {
		t.Fatalf("got %q", got)
	}
	mu.Lock()
	notice = "Redis failed over at 14:02:31 UTC"
	mu.Unlock()
	w.Tick(ctx)
	if got := read(t, page); got != "status available=true" {
		t.Errorf("after the notice: got %q, want the status", got)
	}
	if r.count("board:a") != 2 {
		t.Errorf("board:a rendered %d times, want again after the notice", r.count("board:a"))
	}
	if st := w.Status(); st.Notice != notice {
		t.Errorf("Status() = %+v, want the notice", st)
	}
	if n := w.Tick(ctx); n != 0 || r.count("board:a") != 2 {
		t.Errorf("the next tick published %d (board rendered %d times), want nothing new", n, r.count("board:a"))
	}
	mu.Lock()
	notice = ""
	mu.Unlock()
	before := r.count(domain.TopicStatus)
	w.Tick(ctx)
	if r.count(domain.TopicStatus) != before+1 || w.Status().Notice != "" {
		t.Errorf("the notice's end: status rendered %d times more, status %+v", r.count(domain.TopicStatus)-before, w.Status())
	}
}
