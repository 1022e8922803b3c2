package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestWholeInput(t *testing.T) {
	in := whole{field: "n", min: -10, max: 10}
	for _, tc := range []struct {
		lit  string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"-7", -7, true}, {"10", 10, true},
		{"11", 0, false}, {"-11", 0, false}, // out of range
		{"+5", 0, false}, {"05", 0, false}, {"1.5", 0, false}, {"1e3", 0, false}, {"", 0, false}, {"null", 0, false},
		{`"5"`, 0, false}, {"99999999999999999999", 0, false}, {"0x10", 0, false}, {"1_000", 0, false}, {" 5", 0, false},
	} {
		t.Run(tc.lit, func(t *testing.T) {
			n, err := in.parse(tc.lit)
			if (err == nil) != tc.ok || (tc.ok && n != tc.want) {
				t.Errorf("parse(%q) = %d, %v; want %d, ok %v", tc.lit, n, err, tc.want, tc.ok)
			}
			if err != nil && (domain.ErrorCode(err) != domain.EINVALID || domain.ErrorField(err) != "n") {
				t.Errorf("parse(%q): %v (field %q), want EINVALID about n", tc.lit, err, domain.ErrorField(err))
			}
		})
	}
}

func TestSpanInput(t *testing.T) {
	ttl := span{"ttl", 100 * time.Millisecond, time.Second}
	for _, tc := range []struct {
		name, raw, want string // want: part of the error message, "" for none
	}{
		{"in range", `250`, ""},
		{"missing", ``, "ttl_ms is required: a whole number of milliseconds from 100 to 1,000"},
		{"below", `99`, "ttl_ms must be a whole number of milliseconds from 100 to 1,000, written as digits"},
		{"fraction", `100.5`, "(got 100.5)"},
		{"null", `null`, "(got null)"},
		{"text", `"200"`, `(got "200")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ttl.millis(json.RawMessage(tc.raw))
			switch {
			case tc.want == "" && (err != nil || d != 250*time.Millisecond):
				t.Errorf("%v, %v; want 250ms", d, err)
			case tc.want != "" && (domain.ErrorField(err) != "ttl_ms" || !strings.Contains(domain.ErrorMessage(err), tc.want)):
				t.Errorf("error %v; want one about ttl_ms mentioning %q", err, tc.want)
			}
		})
	}
	hour := span{"delay", 0, time.Hour}
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"30s", true}, {"1m30s", true}, {"500ms", true}, {"0s", true},
		{"1h1s", false}, {"-1s", false}, {"+1s", false}, {"1500us", false}, {"soon", false}, {"30", false},
	} {
		if _, err := hour.text(tc.text); (err == nil) != tc.ok {
			t.Errorf("text(%q) = %v, want ok %v", tc.text, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		text string
		ok   bool
	}{{"0.1", true}, {"1", true}, {"0.05", false}, {"1.0001", false}, {"+1", false}, {"2", false}} {
		if _, err := ttl.seconds(tc.text); (err == nil) != tc.ok {
			t.Errorf("seconds(%q) = %v, want ok %v", tc.text, err, tc.ok)
		}
	}
}

// The same bad number gets the same message from a board's form and from the API, and a
// leading + is refused by the form as JSON refuses it.
func TestFormAndAPISayTheSameOfABadNumber(t *testing.T) {
	s := newTestServer(t, "", nil)
	for _, tc := range []struct {
		field, form, path, api string // api: the JSON body, with the value in place of %s
		values                 []string
	}{
		{"points", "/boards/b/points", "/api/v1/boards/b/scores", `{"player":"a","points":%s}`, []string{"1.5", "1e3", "9007199254740992", "-9007199254740992", "99999999999999999999"}},
		{"keep", "/boards/b/trim", "/api/v1/boards/b/trim", `{"keep":%s}`, []string{"0", "-1", "1.5", "1e3", "1000000001"}},
	} {
		for _, v := range tc.values {
			t.Run(tc.field+" "+v, func(t *testing.T) {
				status, body := s.postJSON(t, tc.path, strings.Replace(tc.api, "%s", v, 1))
				var e apiError
				if err := json.Unmarshal([]byte(body), &e); err != nil || status != http.StatusBadRequest || e.Error.Field != tc.field {
					t.Fatalf("API: %d %s; want 400 about %s", status, body, tc.field)
				}
				status, page, _ := s.postForm(t, "/boards/b", tc.form, url.Values{"player": {"a"}, tc.field: {v}, "confirm": {"yes"}}, "HX-Request", "true")
				if status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(page), `-error" class="error-text">`+e.Error.Message+"</p>") {
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
			`<p class="error-text">tie_break must be`},
		{"source", "/sources", "/sources", url.Values{"name": {"s"}, "kind": {"board"}, "key": {"lock:x"}, "encoding": {"none"}},
			`id="f-src-key-error" class="error-text">key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, page, _ := s.postForm(t, tc.page, tc.path, tc.form)
			if status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(page), tc.beside) || strings.Contains(page, `role="alert"`) {
				t.Errorf("%d; want 400 with %q and no message above the form\n%s", status, tc.beside, page)
			}
		})
	}
}

// A time is RFC 3339 with its offset wherever it comes from, or one message naming its field.
func TestMomentInput(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"2026-11-29T12:30:00Z", true}, {"2026-11-29T13:30:00+01:00", true}, {"2026-11-29T12:30:00.5Z", true},
		{"2026-11-29T12:30:00", false}, {"2026-11-29", false}, {"tomorrow", false}, {"", false},
	} {
		_, err := runAtInput.parse(tc.text)
		if (err == nil) != tc.ok || (err != nil && (domain.ErrorField(err) != "run_at" || !strings.Contains(domain.ErrorMessage(err), "RFC 3339"))) {
			t.Errorf("parse(%q) = %v, want ok %v (or an error about run_at)", tc.text, err, tc.ok)
		}
	}
}
