package domain

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestSourceOverlap(t *testing.T) {
	board := func(key string) Source { return Source{Name: "b", Kind: SourceBoard, Key: key} }
	queue := func(key string) Source { return Source{Name: "q", Kind: SourceQueue, Key: key} }
	log := func(key string) Source {
		return Source{Name: "l", Kind: SourceLimiter, Key: key, Encoding: SourceSlidingLog}
	}
	fw := func(key string) Source {
		return Source{Name: "f", Kind: SourceLimiter, Key: key, Encoding: SourceFixedWindow}
	}
	lock := func(key string) Source { return Source{Name: "k", Kind: SourceLock, Key: key} }
	for _, c := range []struct {
		a, b    Source
		overlap bool
	}{
		// The probe's case: a date is a client.
		{log("svc:rank:{client}"), board("svc:rank:{yyyymmdd}"), true},
		{log("svc:log:{client}"), board("svc:rank:{yyyymmdd}"), false},
		{board("game:rank:{yyyymmdd}"), board("game:rank:{yyyy-mm}"), false},
		{board("game:rank:{yyyymmdd}"), board("game:rank:20261204"), true},
		{board("game:rank:{yyyymmdd}"), board("game:rank:2026120"), false},
		{board("game:rank:{yyyy-Www}"), board("game:rank:2026-W49"), true},
		{board("game:rank:{yyyy-Www}"), board("game:rank:2026-12"), false},
		{queue("jobs"), queue("jobs"), true},
		{queue("jobs"), board("jobs2"), false},
		{lock("svc:"), board("svc:rank"), true},
		{lock("svc:lock:"), board("svc:rank"), false},
		{lock("svc:lock:"), lock("svc:"), true},
		{fw("limit:api:{client}:{window_start}"), log("limit:api:{client}"), true},
		{fw("limit:api:{client}:{window_start}"), log("limit:login:{client}"), false},
		{fw("limit:api:{client}:{window_start}"), board("limit:api:x:{yyyymmdd}"), true},
		{fw("limit:api:{client}:{window_start}"), board("limit:api:x:{yyyy-mm}"), false},
		{log("ratelog:{client}:z"), board("ratelog:a:z:z"), true},
		{log("ratelog:{client}:z"), board("ratelog:a:zz"), false},
		{log("ratelog:{client}:z"), board("ratelog::z"), false}, // a client is one byte or more
		{log("{svc}:{client}"), lock("{svc}:"), true},
		{log("a{client}"), log("{client}b"), true},
		{log("a{client}c"), log("b{client}"), false},
	} {
		ex, ok := c.a.Overlap(c.b)
		ex2, ok2 := c.b.Overlap(c.a)
		if ok != c.overlap || ok2 != c.overlap {
			t.Errorf("%q ∩ %q: overlap %v/%v, want %v", c.a.Key, c.b.Key, ok, ok2, c.overlap)
			continue
		}
		if !ok {
			continue
		}
		if !c.a.names(ex) || !c.b.names(ex) || len(ex) != len(ex2) {
			t.Errorf("%q ∩ %q: example %q (and %q) is not named by both", c.a.Key, c.b.Key, ex, ex2)
		}
	}
}

// names is a test's own reading of whether the layout names key: a regular expression of
// the tokens' shapes.
func (s Source) names(key string) bool {
	re := regexp.QuoteMeta(s.Key)
	for tok, shape := range map[string]string{
		"{yyyymmdd}": `\d{8}`, "{yyyy-mm-dd}": `\d{4}-\d\d-\d\d`, "{yyyy-Www}": `\d{4}-W\d\d`, "{yyyy-mm}": `\d{4}-\d\d`,
		"{window_start}": `\d+`, "{client}": `(?s:.+)`,
	} {
		re = strings.ReplaceAll(re, regexp.QuoteMeta(tok), shape)
	}
	if s.Kind == SourceLock {
		re += `(?s:.*)`
	}
	return regexp.MustCompile("^" + re + "$").MatchString(key)
}

func TestSourceOverlapsAreRefusedAndListed(t *testing.T) {
	saved := []Source{
		{Name: "day", Kind: SourceBoard, Key: "svc:rank:{yyyymmdd}"},
		{Name: "jobs", Kind: SourceQueue, Key: "svc:jobs"},
	}
	log := Source{Name: "log", Kind: SourceLimiter, Key: "svc:rank:{client}", Encoding: SourceSlidingLog}
	err := log.CheckOverlaps(saved)
	if ErrorCode(err) != ECONFLICT || !strings.Contains(err.Error(), `"day"`) || !strings.Contains(err.Error(), "svc:rank:") {
		t.Fatalf("CheckOverlaps = %v, want a conflict naming day", err)
	}
	if err := (Source{Name: "day", Kind: SourceBoard, Key: "svc:rank:{yyyy-mm-dd}"}).CheckOverlaps(saved); err != nil {
		t.Errorf("a source replacing itself: %v", err)
	}
	got := SourceOverlaps(append(saved, log))
	if len(got) != 1 || got[0].Source != "day" || got[0].Other != "log" || !strings.HasPrefix(got[0].Example, "svc:rank:") {
		t.Errorf("SourceOverlaps = %+v", got)
	}
}

func TestFixedWindowLayoutReadsBackWhenSaved(t *testing.T) {
	for key, ok := range map[string]bool{
		"limit:api:{client}:{window_start}":   true,
		"limit:api:{window_start}:{client}":   false,
		"limit:api:{client}{window_start}":    false,
		"limit:api:{{client}}:{window_start}": true,
	} {
		s := Source{Name: "f", Kind: SourceLimiter, Key: key, Encoding: SourceFixedWindow, Limit: 5, WindowMs: 60_000}
		if err := s.Validate(nil); (err == nil) != ok {
			t.Errorf("%q: Validate = %v, want ok %v", key, err, ok)
		}
	}
}

// Overlap never misses: keys rendered from random layouts over a small alphabet (so that
// collisions are common) that another layout also names are always found overlapping, and
// every overlap found comes with a key both name.
func TestSourceOverlapFindsEveryRenderedCollision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "b", ":", "1", "2", "-", "W", "{client}", "{yyyymmdd}", "{yyyy-mm}", "{yyyy-Www}", "{window_start}"}
	fill := map[string][]string{
		"{client}": {"a", "1", "a:b", "12", "2-W1", "1:a", "20261204", "2026-12"}, "{yyyymmdd}": {"20261204", "11111111"},
		"{yyyy-mm}": {"2026-12", "1111-11"}, "{yyyy-Www}": {"2026-W49", "1111-W11"}, "{window_start}": {"1", "12", "1784977500"},
	}
	layout := func() Source {
		var b strings.Builder
		for n := 1 + rng.IntN(5); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		kinds := []SourceKind{SourceBoard, SourceLimiter, SourceLock}
		return Source{Kind: kinds[rng.IntN(len(kinds))], Key: b.String()}
	}
	render := func(s Source) string {
		out := s.Key
		for tok, vals := range fill {
			for strings.Contains(out, tok) {
				out = strings.Replace(out, tok, vals[rng.IntN(len(vals))], 1)
			}
		}
		if s.Kind == SourceLock && rng.IntN(2) == 0 {
			out += []string{"a", "1", ":x", "W12"}[rng.IntN(4)]
		}
		return out
	}
	found := 0
	for range 5000 {
		a, b := layout(), layout()
		ex, ok := a.Overlap(b)
		if ok && (!a.names(ex) || !b.names(ex)) {
			t.Fatalf("%q ∩ %q: example %q is not named by both", a.Key, b.Key, ex)
		}
		for range 20 {
			if key := render(a); b.names(key) {
				found++
				if !ok {
					t.Fatalf("%q and %q both name %q, but Overlap says they do not", a.Key, b.Key, key)
				}
				break
			}
		}
	}
	if found < 100 {
		t.Errorf("only %d collisions rendered: the test does not test", found)
	}
}
