package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestParseWhole(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"-7", -7, true},
		{"10", 10, true},
		{"11", 0, false}, // above hi
		{"-11", 0, false},
		{"+5", 0, false},
		{"05", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"", 0, false},
		{"null", 0, false},
		{`"5"`, 0, false},
		{"99999999999999999999", 0, false},
	} {
		t.Run(tc.lit, func(t *testing.T) {
			n, ok := parseWhole(tc.lit, -10, 10)
			if ok != tc.ok || (ok && n != tc.want) {
				t.Errorf("parseWhole(%q) = %d, %v; want %d, %v", tc.lit, n, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDecodeIntAndMillis(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string // want: part of the error message, "" for none
	}{
		{"in range", `250`, ""},
		{"missing", ``, "ttl_ms is required: a whole number of milliseconds from 100 to 1,000"},
		{"below", `99`, "ttl_ms must be a whole number of milliseconds from 100 to 1,000: a JSON integer"},
		{"fraction", `100.5`, "(got 100.5)"},
		{"null", `null`, "(got null)"},
		{"text", `"200"`, "without fraction or exponent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := decodeMillis(json.RawMessage(tc.raw), "ttl_ms", 100*time.Millisecond, time.Second)
			switch {
			case tc.want == "" && (err != nil || d != 250*time.Millisecond):
				t.Errorf("%v, %v; want 250ms", d, err)
			case tc.want != "" && (domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), tc.want)):
				t.Errorf("error %v; want EINVALID mentioning %q", err, tc.want)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"30s", true}, {"1m30s", true}, {"500ms", true}, {"0s", true},
		{"1h1s", false}, {"-1s", false}, {"1500us", false}, {"soon", false}, {"30", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if _, ok := parseDuration(tc.text, 0, time.Hour); ok != tc.ok {
				t.Errorf("parseDuration(%q) ok = %v, want %v", tc.text, ok, tc.ok)
			}
		})
	}
}

// Invalid UTF-8 (raw or as a lone surrogate escape) and a member named twice, at any depth,
// are refused with a 400 that names the problem, and nothing is written: encoding/json would
// store U+FFFD, or keep the last of the two.
func TestDecodeRefusesBadUTF8AndDuplicateNames(t *testing.T) {
	s := newTestServer(t, "", nil)
	for _, c := range []struct{ path, body, want string }{
		{"/api/v1/boards/b/scores", `{"player":"a","player":"b","points":1}`, `names \"/player\" twice`},
		{"/api/v1/boards/b/scores", "{\"player\":\"a\xff\",\"points\":1}", "not valid UTF-8"},
		{"/api/v1/boards/b/scores", `{"player":"a\ud800","points":1}`, "not valid Unicode"},
		{"/api/v1/queues/q/jobs", `{"id":"j","payload":{"k":1,"k":2}}`, `names \"/payload/k\" twice`},
	} {
		status, body := s.postJSON(t, c.path, c.body)
		if status != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("%s %q: %d %s, want 400 saying %s", c.path, c.body, status, body, c.want)
		}
	}
	if k := keys(t, s.rdb); len(k) != 0 {
		t.Errorf("refused bodies wrote %v", k)
	}
	if status, body := s.postJSON(t, "/api/v1/boards/b/scores", `{"player":"\ud83d\ude00","points":1}`); status != http.StatusOK {
		t.Errorf("a valid surrogate pair: %d %s", status, body)
	}
}
