package web

import (
	"strings"
	"testing"
)

// The live mode (Deps.LiveMode) shows in every page's footer and in /readyz's body.
func TestLiveModeInFooterAndReadyz(t *testing.T) {
	t.Parallel()
	const mode = "live: polling every 250 ms (--live-notifications off)"
	s := newFakeServer(t, "", nil, func(d *Deps) { d.LiveMode = func() string { return mode } })
	if status, body := s.get(t, "/readyz"); status != 200 || !strings.Contains(body, `"live":"`+mode+`"`) {
		t.Errorf("readyz: %d %s", status, body)
	}
	if status, body := s.get(t, "/locks"); status != 200 || !strings.Contains(body, "<p data-live-mode>"+mode+"</p>") {
		t.Errorf("footer of /locks: %d, no %q", status, mode)
	}
}
