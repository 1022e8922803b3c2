package store

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// Discovery also sweeps, within its bounds, the sorted sets whose keys hold a date as the
// second article writes its daily boards (game:rank:20261201), so /sources can suggest
// adopting a layout no source declares yet. What it keeps is the keys of one pass, at most
// MaxDatedKeys; the suggestions are computed from that snapshot, never by a SCAN of their own.

// datedPattern is the SCAN MATCH of keys with a yyyymmdd date of this century.
const datedPattern = "*20[0-9][0-9][01][0-9][0-3][0-9]*"

// MaxDatedKeys bounds the dated keys one pass keeps.
const MaxDatedKeys = 10_000

// SweepsPerRefresh is how many sweeps one refresh steps on each master besides those of
// adopted patterns: the kinds, and the dated keys.
const SweepsPerRefresh = int(KindCount) + 1

// MaxSuggestions bounds the layouts suggested.
const MaxSuggestions = 10

// datedPart finds the date in a key: eight digits, a real month and day, not inside a longer
// number.
var datedPart = regexp.MustCompile(`(^|[^0-9])(20[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01]))($|[^0-9])`)

// DatedLayouts groups the dated sorted sets the last passes found by layout (the date made
// {yyyymmdd}): the layouts a board source could adopt, most keys first, with the newest key of
// each. Keys of zpulse's families (its own keys, its boards) are not suggested.
func (d *Discovery) DatedLayouts() []domain.SourceSuggestion {
	d.mu.Lock()
	keys := maps.Clone(d.dated.found)
	maps.Copy(keys, d.dated.seen)
	d.mu.Unlock()
	byLayout := map[string]*domain.SourceSuggestion{}
	for key := range keys {
		m := datedPart.FindStringSubmatchIndex(key)
		if m == nil || d.inFamily(key) {
			continue
		}
		layout := key[:m[4]] + "{yyyymmdd}" + key[m[5]:]
		src := domain.Source{Name: "s", Kind: domain.SourceBoard, Key: layout, Encoding: string(domain.TieBreakNone)}
		if src.Validate(d.families) != nil {
			continue
		}
		s := byLayout[layout]
		if s == nil {
			s = &domain.SourceSuggestion{Key: layout}
			byLayout[layout] = s
		}
		s.Keys++
		if key > s.Example {
			s.Example = key
		}
	}
	out := make([]domain.SourceSuggestion, 0, len(byLayout))
	for _, s := range byLayout {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b domain.SourceSuggestion) int {
		return cmp.Or(cmp.Compare(b.Keys, a.Keys), cmp.Compare(a.Key, b.Key))
	})
	if len(out) > MaxSuggestions {
		out = out[:MaxSuggestions]
	}
	return out
}

// inFamily says whether key is under one of zpulse's key families.
func (d *Discovery) inFamily(key string) bool {
	for _, f := range d.families {
		if strings.HasPrefix(key, f.Prefix) {
			return true
		}
	}
	return false
}
