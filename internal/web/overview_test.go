package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/redistest"
)

func TestOverviewShowsEveryArea(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, "", nil)
	s.postJSON(t, "/api/v1/boards/g/scores", `{"player":"a","points":3}`)
	s.postJSON(t, "/api/v1/limiters/default/check", `{"client":"c-42"}`)
	s.postJSON(t, "/api/v1/locks/order:1001/acquire", `{"ttl_ms":30000}`)
	_, page := s.get(t, "/")
	for _, want := range []string{
		`id="boards-list"`, `data-board="g"`, `id="limiters-overview"`, `data-limiter="default"`, "order:1001",
		"topic=boards", "topic=limiters", "topic=locks",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the overview lacks %s", want)
		}
	}
	if strings.Contains(page, `id="demo-switch"`) {
		t.Error("a demo switch without a demo")
	}
	if status, _, _ := s.postForm(t, "/boards/b", "/demo", url.Values{"paused": {"true"}}); status != http.StatusNotFound {
		t.Errorf("demo switch without a demo: %d, want 404", status)
	}
}

func TestDemoSwitch(t *testing.T) {
	t.Parallel()
	rdb := redistest.DB(t)
	s := newTestServerWith(t, "", rdb, func(d *Deps) { d.Demo = openRepo(t, rdb).Demo })
	if _, page := s.get(t, "/"); !strings.Contains(page, "Demo traffic running") {
		t.Error("no running demo on the overview")
	}
	status, body, _ := s.postForm(t, "/", "/demo", url.Values{"paused": {"true"}}, "HX-Request", "true")
	if status != http.StatusOK || !strings.Contains(body, "Demo traffic paused") || s.rdb.Exists(t.Context(), "zpulse:demo:paused").Val() != 1 {
		t.Errorf("pause: %d %s", status, body)
	}
	status, _, h := s.postForm(t, "/", "/demo", url.Values{"paused": {"false"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/" || s.rdb.Exists(t.Context(), "zpulse:demo:paused").Val() != 0 {
		t.Errorf("resume without JavaScript: %d", status)
	}
	if status, _, _ := s.postForm(t, "/", "/demo", url.Values{"paused": {"maybe"}}); status != http.StatusBadRequest {
		t.Errorf("a bad value: %d", status)
	}
}
