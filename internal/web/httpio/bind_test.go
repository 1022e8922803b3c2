package httpio

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestWholeInput(t *testing.T) {
	in := Whole{field: "n", min: -10, max: 10}
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
			n, err := in.Parse(tc.lit)
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
	ttl := Span{"ttl", 100 * time.Millisecond, time.Second}
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
			d, err := ttl.Millis(json.RawMessage(tc.raw))
			switch {
			case tc.want == "" && (err != nil || d != 250*time.Millisecond):
				t.Errorf("%v, %v; want 250ms", d, err)
			case tc.want != "" && (domain.ErrorField(err) != "ttl_ms" || !strings.Contains(domain.ErrorMessage(err), tc.want)):
				t.Errorf("error %v; want one about ttl_ms mentioning %q", err, tc.want)
			}
		})
	}
	hour := Span{"delay", 0, time.Hour}
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"30s", true}, {"1m30s", true}, {"500ms", true}, {"0s", true},
		{"1h1s", false}, {"-1s", false}, {"+1s", false}, {"1500us", false}, {"soon", false}, {"30", false},
	} {
		if _, err := hour.Text(tc.text); (err == nil) != tc.ok {
			t.Errorf("text(%q) = %v, want ok %v", tc.text, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		text string
		ok   bool
	}{{"0.1", true}, {"1", true}, {"0.05", false}, {"1.0001", false}, {"+1", false}, {"2", false}} {
		if _, err := ttl.Seconds(tc.text); (err == nil) != tc.ok {
			t.Errorf("seconds(%q) = %v, want ok %v", tc.text, err, tc.ok)
		}
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
		_, err := RunAtInput.Parse(tc.text)
		if (err == nil) != tc.ok || (err != nil && (domain.ErrorField(err) != "run_at" || !strings.Contains(domain.ErrorMessage(err), "RFC 3339"))) {
			t.Errorf("parse(%q) = %v, want ok %v (or an error about run_at)", tc.text, err, tc.ok)
		}
	}
}
