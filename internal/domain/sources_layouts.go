package domain

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // a source's Zone resolves on a host without /usr/share/zoneinfo
	"unicode"
	"unicode/utf8"
)

// The layouts of the second article beyond its examples: a Cluster hash tag in the key
// ({game}:rank:{yyyymmdd}, limit:api:{{client}}:{window_start}), keys dated in the service's
// time zone, its tie-break with another max_ts, and its token bucket in the service's own
// hash fields.

// Bounds of a source's options.
const (
	MaxSourceMaxTS    = 1_000_000_000_000 // a max_ts in seconds, far beyond any ts
	MaxSourceFieldLen = 64
)

// Time units of an adopted token bucket's refill time.
const (
	SourceMillis  = "ms"
	SourceSeconds = "s"
)

// firstToken is the byte offset of the first token in key, -1 without one.
func firstToken(key string) int {
	first := -1
	for _, tok := range sourceTokens {
		if i := strings.Index(key, tok); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}

// withoutHashTag drops the braces of one Cluster hash tag, "{" before "}" with something
// between, from a layout whose tokens were replaced; any other brace stays (and is refused).
func withoutHashTag(rest string) string {
	open, end := strings.IndexByte(rest, '{'), strings.IndexByte(rest, '}')
	if strings.Count(rest, "{") != 1 || strings.Count(rest, "}") != 1 || end < open+2 {
		return rest
	}
	return rest[:open] + rest[open+1:end] + rest[end+1:]
}

// validateBoardOptions checks a board's zone (dated: its key holds a period token) and
// max_ts.
func (s *Source) validateBoardOptions(dated bool) error {
	if s.Zone != "" {
		if !dated {
			return FieldErrorf("zone", EINVALID, "zone applies to a dated key (one with {yyyymmdd}, {yyyy-mm-dd}, {yyyy-Www} or {yyyy-mm}); %q has none", clip(s.Key))
		}
		if _, err := loadZone(s.Zone); err != nil || s.Zone == "Local" {
			return FieldErrorf("zone", EINVALID, "zone must be an IANA time zone such as Asia/Shanghai or UTC (got %q)", clip(s.Zone))
		}
	}
	if s.MaxTS != 0 {
		if s.TieBreak() != TieBreakFirstReachedE10 {
			return FieldErrorf("max_ts", EINVALID, "max_ts applies to the first_reached_e10 encoding only (got encoding %q)", clip(s.Encoding))
		}
		if s.MaxTS < 1 || s.MaxTS > MaxSourceMaxTS {
			return FieldErrorf("max_ts", EINVALID, "max_ts must be a whole number of seconds from 1 to %s (got %d)", FormatCount(MaxSourceMaxTS), s.MaxTS)
		}
	}
	return nil
}

// validateBucket checks a token bucket's key (clients: how many {client}, others: other
// tokens), fields, unit, capacity and rate.
func (s *Source) validateBucket(clients, others int) error {
	if clients != 1 || others > 0 {
		return FieldErrorf("key", EINVALID, "a token bucket's key holds {client} once, e.g. bucket:{client} or limit:api:{{client}} (got %q)", clip(s.Key))
	}
	for _, f := range []struct{ field, v string }{{"tokens_field", s.TokensField}, {"time_field", s.TimeField}} {
		if len(f.v) == 0 || len(f.v) > MaxSourceFieldLen || !utf8.ValidString(f.v) || strings.TrimSpace(f.v) != f.v ||
			strings.IndexFunc(f.v, unicode.IsControl) >= 0 {
			return FieldErrorf(f.field, EINVALID, "%s must be the hash field the service uses, 1 to %d bytes of text (got %q)", f.field, MaxSourceFieldLen, clip(f.v))
		}
	}
	if s.TokensField == s.TimeField {
		return FieldErrorf("time_field", EINVALID, "time_field must differ from tokens_field (both %q)", clip(s.TimeField))
	}
	if s.TimeUnit == "" {
		s.TimeUnit = SourceMillis
	}
	if s.TimeUnit != SourceMillis && s.TimeUnit != SourceSeconds {
		return FieldErrorf("time_unit", EINVALID, `time_unit must be "ms" or "s" (got %q)`, clip(s.TimeUnit))
	}
	if s.Limit < 1 || s.Limit > MaxBurst {
		return FieldErrorf("limit", EINVALID, "limit (the bucket's capacity) must be a whole number of tokens from 1 to %s (got %d)", FormatCount(MaxBurst), s.Limit)
	}
	if math.IsNaN(s.RatePerS) || s.RatePerS < MinRatePerS || s.RatePerS > MaxRatePerS {
		return FieldErrorf("rate_per_s", EINVALID, "rate_per_s must be from %g to %s tokens a second (got %g)", MinRatePerS, FormatCount(MaxRatePerS), s.RatePerS)
	}
	s.WindowMs = 0
	return nil
}

func (s *Source) clearBoard() { s.Zone, s.MaxTS, s.SortOrder = "", 0, "" }

func (s *Source) clearBucket() {
	s.TokensField, s.TimeField, s.TimeUnit, s.RatePerS = "", "", "", 0
}

var zones sync.Map // zone name → *time.Location

func loadZone(name string) (*time.Location, error) {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, l)
	return l, nil
}

// Location is the time zone a dated board's keys are named in: Zone, or UTC.
func (s Source) Location() *time.Location {
	if l, err := loadZone(s.Zone); err == nil && s.Zone != "" {
		return l
	}
	return time.UTC
}

// Scores reads a board source's points in its order: its encoding, with the service's
// max_ts (a Ranking: the reads by key rank in its SortOrder).
func (s Source) Scores() Scores {
	var scores Scores = s.TieBreak()
	if s.TieBreak() == TieBreakFirstReachedE10 && s.MaxTS != 0 {
		scores = E10Scores{MaxTS: s.MaxTS}
	}
	return Ranking{Scores: scores, Order: s.Order()}
}

// Order is a board source's order: SortDesc unless declared ascending.
func (s Source) Order() SortOrder {
	if s.SortOrder == SortAsc {
		return SortAsc
	}
	return SortDesc
}

// E10Scores is the second article's encoding with a max_ts of the service's: score =
// points × 10^10 + (max_ts − ts), ts in seconds. Whatever max_ts is, score − max_ts =
// points × 10^10 − ts, and for ts from 1 to 10^10 − 1 (1970 to 2286) its ceiling over 10^10
// is the points: so a max_ts above ts + 10^10, where ⌊score / 10^10⌋ counts too many, or
// below ts, where it counts too few, still reads right.
type E10Scores struct{ MaxTS int64 }

func (e E10Scores) Points(score float64) int64 {
	if math.Abs(score) > MaxSafeScore {
		return int64(math.Ceil((score - float64(e.MaxTS)) / E10Scale))
	}
	n := int64(score) - e.MaxTS
	p := n / E10Scale
	if n%E10Scale > 0 {
		p++ // ceiling, not truncation, for positive parts
	}
	return p
}

// UnitMs is how many ms one unit of a token bucket's time field is: 1 or 1000.
func (s Source) UnitMs() int64 {
	if s.TimeUnit == SourceSeconds {
		return 1000
	}
	return 1
}

// BucketTokens is how many tokens an adopted bucket holds at now, from its fields as the
// service wrote them (tokens, the last refill's time in TimeUnit): refilled lazily up to the
// capacity, and full when a field is missing or unreadable.
func (s Source) BucketTokens(tokens, last string, now time.Time) float64 {
	n, err1 := strconv.ParseFloat(tokens, 64)
	at, err2 := strconv.ParseFloat(last, 64)
	capacity := float64(s.Limit)
	if err1 != nil || err2 != nil || math.IsNaN(n) || math.IsNaN(at) {
		return capacity
	}
	elapsedMs := float64(now.UnixMilli()/s.UnitMs())*float64(s.UnitMs()) - at*float64(s.UnitMs())
	return math.Max(0, math.Min(capacity, n+math.Max(elapsedMs, 0)*s.RatePerS/1000))
}
