package domain

import (
	"strings"
	"testing"
)

func TestShortError(t *testing.T) {
	long := strings.Repeat("é", 200)
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  smtp: 550  mailbox\tunavailable ", "smtp: 550 mailbox unavailable"},
		{"panic: nil map\ngoroutine 1 [running]:\nmain.main()", "panic: nil map …"},
		{long, strings.Repeat("é", ShortErrorRunes-1) + "…"},
	} {
		if got := ShortError(c.in); got != c.want {
			t.Errorf("ShortError(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	errs := []AttemptError{{Error: "first"}, {Error: "second"}, {Edit: "requeued by an operator"}}
	if got := LastError(errs); got != "second" {
		t.Errorf("LastError = %q, want the last failure, not the edit", got)
	}
}

// An excerpt marks the first match ignoring case, as written in the payload, with at most
// ExcerptRunes runes each side; multi-byte text is cut on rune boundaries.
func TestExcerptOf(t *testing.T) {
	o := JobSearchOptions{Text: "ANA@"}
	e := o.ExcerptOf([]byte(`{"to":"ana@example.com"}`))
	if e == nil || e.Before != `{"to":"` || e.Match != "ana@" || e.After != `example.com"}` {
		t.Fatalf("excerpt = %+v", e)
	}
	payload := `{"note":"` + strings.Repeat("ü", 60) + `Straße` + strings.Repeat("ß", 60) + `"}`
	e = JobSearchOptions{Text: "STRASSE"}.ExcerptOf([]byte(payload))
	if e != nil {
		t.Errorf("simple folding does not match ß with ss; got %+v", e)
	}
	e = JobSearchOptions{Text: "straße"}.ExcerptOf([]byte(payload))
	if e == nil || e.Match != "Straße" || !strings.HasPrefix(e.Before, "…") || !strings.HasSuffix(e.After, "…") ||
		len([]rune(e.Before)) != ExcerptRunes+1 || len([]rune(e.After)) != ExcerptRunes+1 {
		t.Errorf("excerpt = %+v; want Straße with 40 runes each side and …", e)
	}
	if e := (JobSearchOptions{Text: "zzz"}).ExcerptOf([]byte(payload)); e != nil {
		t.Errorf("no match: %+v", e)
	}
}

// A reader who does not see payloads gets no excerpt.
func TestAudienceJobSearchHidesExcerpts(t *testing.T) {
	p := JobSearchPage{Jobs: []JobMatch{{Match: "payload", Excerpt: &Excerpt{Match: "x"}}}}
	if got := Admin.JobSearch(p); got.Jobs[0].Excerpt == nil {
		t.Error("an admin lost the excerpt")
	}
	if got := Anonymous(0, "k").JobSearch(p); got.Jobs[0].Excerpt != nil || p.Jobs[0].Excerpt == nil {
		t.Error("a reader without payloads got the excerpt (or the original page was changed)")
	}
}
