package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The same bad number gets the same message from a board's form and from the API (the form
// names the field by its label rather than its key), and a
// leading + is refused by the form as JSON refuses it.
func TestFormAndAPISayTheSameOfABadNumber(t *testing.T) {
	s := newTestServer(t, "", nil)
	for _, tc := range []struct {
		field, label, form, path, api string // api: the JSON body, with the value in place of %s
		values                        []string
	}{
		{"points", "Points", "/boards/b/points", "/api/v1/boards/b/scores", `{"player":"a","points":%s}`, []string{"1.5", "1e3", "9007199254740992", "-9007199254740992", "99999999999999999999"}},
		{"keep", "Keep", "/boards/b/trim", "/api/v1/boards/b/trim", `{"keep":%s}`, []string{"0", "-1", "1.5", "1e3", "1000000001"}},
	} {
		for _, v := range tc.values {
			t.Run(tc.field+" "+v, func(t *testing.T) {
				status, body := s.postJSON(t, tc.path, strings.Replace(tc.api, "%s", v, 1))
				var e httpio.APIError
				if err := json.Unmarshal([]byte(body), &e); err != nil || status != http.StatusBadRequest || e.Error.Field != tc.field {
					t.Fatalf("API: %d %s; want 400 about %s", status, body, tc.field)
				}
				status, page, _ := s.postForm(t, "/boards/b", tc.form, url.Values{"player": {"a"}, tc.field: {v}, "confirm": {"yes"}}, "HX-Request", "true")
				if status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(page), `-error" class="error-text">“`+tc.label+"”"+strings.TrimPrefix(e.Error.Message, tc.field)+"</p>") {
					t.Errorf("form: %d; want 400 with the API's message beside %s: %q\n%.600s", status, tc.field, e.Error.Message, page)
				}
			})
		}
	}
	status, page, _ := s.postForm(t, "/boards/b", "/boards/b/points", url.Values{"player": {"a"}, "points": {"+5"}}, "HX-Request", "true")
	if status != http.StatusBadRequest || !strings.Contains(page, "(got +5)") {
		t.Errorf("points +5 in the form: %d, want 400 as JSON refuses it", status)
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("refused numbers wrote %v", k)
	}
}

// A form puts a validation error beside the field the error names (domain.Error.Field), not
// above the form, whatever its message says.
func TestFormErrorsGoBesideTheFieldTheyName(t *testing.T) {
	s := newTestServer(t, "", nil)
	for _, tc := range []struct {
		name, page, path string
		form             url.Values
		beside           string // what comes before the message when it is beside its field
	}{
		{"policy", "/limiters/api", "/limiters/api/policy", url.Values{"algorithm": {"sliding_log"}, "limit": {"5"}, "window": {"1m"}, "shared": {"1s"}},
			`id="f-shared-error" class="error-text">shared_window_ms must be`},
		{"policy algorithm", "/limiters/default", "/limiters/default/policy", url.Values{"algorithm": {"fixed_window"}, "limit": {"5"}, "window": {"1m"}},
			`id="f-algorithm-error" class="error-text">the policy`},
		{"board settings", "/boards/b", "/boards/b/settings", url.Values{"tie_break": {"magic"}, "retention_days": {"30"}},
			`<p class="error-text">“Equal points” must be`},
		{"source", "/sources", "/sources", url.Values{"name": {"s"}, "kind": {"board"}, "key": {"{yyyymmdd}"}, "encoding": {"none"}},
			`id="f-src-key-error" class="error-text">“Key or template”`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, page, _ := s.postForm(t, tc.page, tc.path, tc.form)
			if status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(page), tc.beside) || strings.Contains(page, `role="alert"`) {
				t.Errorf("%d; want 400 with %q and no message above the form\n%s", status, tc.beside, page)
			}
		})
	}
}
