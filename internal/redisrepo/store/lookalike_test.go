package store

import (
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// The reading side: rate keys another service wrote on the articles' rate:<client> belong to
// the policy "default", whatever ":" the client holds; zpulse's own keys of other policies
// read back as theirs; keys of unsaved policies or foreign shapes are nobody's.
func TestParseSlidingLog(t *testing.T) {
	t.Parallel()
	logs := map[string]domain.LimitPolicy{"default": domain.DefaultPolicy, "pa": {Name: "pa", Algorithm: domain.SlidingLog}}
	for key, want := range map[string][2]string{
		"rate:c-77":           {"default", "c-77"},
		"rate:pa:c":           {"default", "pa:c"},
		"rate:sl:pa:{c}":      {"pa", "c"},
		"rate:sl:pa:{x:y}":    {"pa", "x:y"},
		"rate:sl:pb:{c}":      {}, // pb is not a saved sliding log
		"rate:fw:pa:{c}":      {}, // another algorithm's state
		"rate:sl:pa:{c}x":     {},
		"rate:sl:pa{c}":       {},
		"rate:sl:default:{c}": {},
		"rate:x{y}":           {},
		"leaderboard:c":       {},
	} {
		policy, client, ok := DefaultKeys.ParseSlidingLog(key, logs)
		if got := [2]string{policy, client}; got != want || ok != (want[0] != "") {
			t.Errorf("parseSlidingLog(%q) = %q, %q, %v; want %q", key, policy, client, ok, want)
		}
	}
}
