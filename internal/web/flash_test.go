package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A plain form's result shows once, at the top of the page it returns to, and that page is the
// tab or search the form was sent from when it is one of the same queue's pages (the queue's
// own page otherwise).
func TestFormResultAtTheTopOfThePageItCameFrom(t *testing.T) {
	s := newTestServer(t, "", nil)
	if status, b := s.postJSON(t, "/api/v1/queues/mail/jobs", `{"id":"a","priority":1}`); status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", status, b)
	}
	for _, c := range []struct{ from, want string }{
		{"/queues/mail/jobs?state=waiting&q=a", "/queues/mail/jobs?state=waiting&q=a"},
		{"/queues/mail", "/queues/mail"},
		{"/queues/other/jobs?state=dead", "/queues/mail"},
		{"/boards/b", "/queues/mail"},
	} {
		action := "/queues/mail/pause"
		if strings.Contains(c.from, "q=a") || c.from == "/boards/b" {
			action = "/queues/mail/resume"
		}
		status, _, h := s.postForm(t, "/queues/mail", action, url.Values{}, "Referer", s.URL+c.from)
		if got := h.Get("Location"); status != http.StatusSeeOther || got != c.want {
			t.Errorf("from %s: %d to %q, want 303 to %q", c.from, status, got, c.want)
			continue
		}
		_, page := s.get(t, c.want)
		flash, title := strings.Index(page, `data-testid="flash"`), strings.Index(page, "<h1")
		if flash < 0 || flash > title || strings.Count(page, `data-testid="job-ok"`) != 1 {
			t.Errorf("from %s: the result is not shown once above the title", c.from)
		}
		if _, again := s.get(t, c.want); strings.Contains(again, `data-testid="flash"`) {
			t.Errorf("from %s: the result shows again on the next view", c.from)
		}
	}
}
