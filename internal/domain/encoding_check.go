package domain

import (
	"context"
	"math"
	"time"
)

// Mixed encodings: a board whose settings name one encoding while its members' scores were
// written in another (a service writing the main article's fractions to a board left at
// "none", or a legacy board read as first_reached_wide receiving the article's writes)
// misranks silently, since fractions of different encodings do not compare. The check reads
// the first EncodingSample scores and tells which encodings each fits; the fix saves the
// encoding most misfits fit and rewrites the misfits in it, points and time kept.

// EncodingSample is how many scores (from the top) the check reads.
const EncodingSample = 200

// EncodingPast is how far back a time read from a score may lie and still fit an encoding:
// a fraction that decodes to a time outside [now − EncodingPast, now + EncodingAhead] was not
// written in that encoding.
const (
	EncodingPast  = 10 * 365 * 24 * time.Hour
	EncodingAhead = 24 * time.Hour
)

// EncodingReport is the check of a board's scores against its encoding setting.
type EncodingReport struct {
	Board    string   `json:"board"`
	TieBreak TieBreak `json:"tie_break"` // the board's setting
	Checked  int      `json:"checked"`
	Misfits  int      `json:"misfits"` // checked scores that do not fit the setting
	// Fits counts, of the checked scores, how many fit each encoding (a score may fit several).
	Fits map[TieBreak]int `json:"fits"`
	// Example is one misfit (the highest ranked), nil when every score fits.
	Example *EncodingMisfit `json:"example"`
	// Likely is the encoding most misfits fit, "" when no misfit fits any.
	Likely TieBreak `json:"likely"`
}

// EncodingMisfit is a score that does not fit the board's encoding.
type EncodingMisfit struct {
	Player string     `json:"player"`
	Score  float64    `json:"score"` // as Redis holds it
	Fits   []TieBreak `json:"fits"`
}

// EncodingFix is what a fix did.
type EncodingFix struct {
	Board    string   `json:"board"`
	TieBreak TieBreak `json:"tie_break"` // saved
	Scanned  int64    `json:"scanned"`
	// Rewritten scores were re-encoded; Changed ones were written meanwhile and left as that
	// write made them (a write through zpulse converts its own player to the new encoding);
	// Left ones fit no encoding and were left alone.
	Rewritten int64 `json:"rewritten"`
	Changed   int64 `json:"changed"`
	Left      int64 `json:"left"`
}

// EncodingOps checks and fixes a board's scores against its encoding.
type EncodingOps interface {
	// CheckEncoding reads the board's first EncodingSample scores (all-time) and reports
	// those that do not fit its encoding. Returns EINVALID, CodeWrongType, EUNAVAILABLE.
	CheckEncoding(ctx context.Context, board string) (EncodingReport, error)

	// FixEncoding saves encoding to and rewrites every score of the board (all-time and the
	// current period boards) that does not fit it but fits another encoding: same points,
	// same time (a plain score takes the time of the fix), in batches of one script each; a
	// member is rewritten only while its score is still the one read. Returns EINVALID,
	// CodeWrongType, EUNAVAILABLE.
	FixEncoding(ctx context.Context, board string, to TieBreak) (EncodingFix, error)
}

// Time is the time a score written in encoding t carries, and whether it has one that t can
// have written by now (within EncodingPast and EncodingAhead of now). TieBreakNone carries no
// time: false.
func (t TieBreak) Time(score float64, now time.Time) (time.Time, bool) {
	if math.IsNaN(score) || math.IsInf(score, 0) || math.Abs(score) > MaxSafeScore {
		return time.Time{}, false
	}
	floor := math.Floor(score)
	frac := score - floor
	var at time.Time
	switch t {
	case TieBreakFirstReached:
		if frac == 0 || math.Abs(floor) > FirstReachedMaxPoints {
			return time.Time{}, false
		}
		at = time.UnixMilli(int64(math.Round((1 - frac) * 1e13)))
	case TieBreakFirstReachedWide:
		if frac == 0 || math.Abs(floor) > WideMaxPoints {
			return time.Time{}, false
		}
		s := WideSlots - 1 - int64(math.Round(frac*WideSlots))
		if s < 0 {
			return time.Time{}, false
		}
		at = WideEpoch.Add(time.Duration(s) * time.Second)
	case TieBreakFirstReachedE10:
		if frac != 0 {
			return time.Time{}, false
		}
		n := int64(score)
		low := n % E10Scale
		if low < 0 {
			low += E10Scale
		}
		at = time.Unix(E10MaxTS-low, 0)
	default:
		return time.Time{}, false
	}
	at = at.UTC()
	return at, !at.Before(now.Add(-EncodingPast)) && !at.After(now.Add(EncodingAhead))
}

// Fits says whether a score can have been written in encoding t by now: a whole number for
// TieBreakNone, a time t can have written for the others.
func (t TieBreak) Fits(score float64, now time.Time) bool {
	if t == TieBreakNone {
		return score == math.Trunc(score) && math.Abs(score) <= MaxSafeScore
	}
	_, ok := t.Time(score, now)
	return ok
}

// FitsOf lists the encodings a score fits, in TieBreaks order.
func FitsOf(score float64, now time.Time) []TieBreak { return FitsOfFor(SortDesc, score, now) }

// FitsOfFor is FitsOf on a board of order o (an ascending board's times are reversed:
// TieBreak.EncodeFor).
func FitsOfFor(o SortOrder, score float64, now time.Time) []TieBreak {
	var out []TieBreak
	for _, t := range TieBreaks {
		if t.FitsFor(o, score, now) {
			out = append(out, t)
		}
	}
	return out
}

// CheckScores checks entries (ranked, from the top) against the encoding setting.
func CheckScores(board string, setting TieBreak, entries []Entry, now time.Time) EncodingReport {
	return CheckScoresFor(board, setting, SortDesc, entries, now)
}

// CheckScoresFor is CheckScores on a board of order o.
func CheckScoresFor(board string, setting TieBreak, o SortOrder, entries []Entry, now time.Time) EncodingReport {
	r := EncodingReport{Board: board, TieBreak: setting, Checked: len(entries), Fits: map[TieBreak]int{}}
	misfitsFit := map[TieBreak]int{}
	for _, e := range entries {
		fits := FitsOfFor(o, e.Raw, now)
		ok := false
		for _, t := range fits {
			r.Fits[t]++
			ok = ok || t == setting
		}
		if ok {
			continue
		}
		r.Misfits++
		if r.Example == nil {
			r.Example = &EncodingMisfit{Player: e.Player, Score: e.Raw, Fits: append([]TieBreak{}, fits...)}
		}
		for _, t := range fits {
			misfitsFit[t]++
		}
	}
	best := 0
	for _, t := range TieBreaks {
		if misfitsFit[t] > best {
			r.Likely, best = t, misfitsFit[t]
		}
	}
	return r
}

// Reencode is a score written in encoding from, rewritten in encoding to with the same points
// and the same time (now when from carries none). ok is false when the score does not fit
// from, or its points or time are outside to's range.
func Reencode(score float64, from, to TieBreak, now time.Time) (float64, bool) {
	return ReencodeFor(SortDesc, score, from, to, now)
}

// ReencodeFor is Reencode on a board of order o.
func ReencodeFor(o SortOrder, score float64, from, to TieBreak, now time.Time) (float64, bool) {
	if !from.FitsFor(o, score, now) {
		return 0, false
	}
	at, timed := from.TimeFor(o, score, now)
	if !timed {
		at = now
	}
	out, err := to.EncodeFor(o, from.Points(score), at)
	return out, err == nil
}
