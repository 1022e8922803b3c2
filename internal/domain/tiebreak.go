package domain

import (
	"fmt"
	"math"
	"time"
)

// TieBreak says how a board orders equal points: its score encoding. Every encoding keeps
// the true points readable from the score (TieBreak.Points), so every page shows points, never
// the encoded number. The encodings that carry a time order two players with equal points by
// who reached them first; that time is the time of the write that reached the current total
// (every increment re-encodes it atomically in one script, because ZINCRBY would add the time
// parts up, as the main article warns).
//
// The time of a tie-break write is Redis TIME, read inside the script (or the injected clock
// of a test), so every zpulse instance and the articles' services stamp one clock.
type TieBreak string

const (
	// TieBreakNone is a plain score, the points themselves: equal points are ordered as Redis
	// orders equal scores (by player id, descending in ZREVRANGE). Range ±MaxSafeScore.
	TieBreakNone TieBreak = "none"

	// TieBreakFirstReached is the main article's addPointsWithTieBreak, exactly:
	//
	//	score = points + (1.0 − ms/1e13)        ms = Unix epoch milliseconds
	//	points = floor(score)
	//
	// computed in IEEE doubles in that order, as the article's Java does, so zpulse and a
	// service written from the article order one board together whoever wrote.
	//
	// Range: |points| ≤ FirstReachedMaxPoints (2^20 − 1 = 1,048,575), for times from
	// 2001-09-09 (ms ≥ 1e12, the fraction ≤ 0.9) to 2286-11-20 (ms < 1e13, fraction > 0).
	// Within it floor(score) is the points exactly. Time resolution is the spacing of doubles
	// near the score (ResolutionAt): 1 ms up to 510 points (at 100 points a step is 0.14 ms,
	// so every millisecond is its own score), 18.2 ms at 10^4 points (8,191–16,382 points),
	// 1.16 s at 10^6 points (524,287–1,048,575 points). Writes closer together than that may share a score
	// (and then rank by player id); later writes never rank above earlier ones.
	TieBreakFirstReached TieBreak = "first_reached"

	// TieBreakFirstReachedE10 is the second article's (002) integer encoding:
	//
	//	score  = points × 10^10 + (max_ts − ts)   ts = Unix epoch seconds, max_ts = 9,999,999,999
	//	points = ⌊score / 10^10⌋  (integer division; the low ten digits are max_ts − ts)
	//
	// The article fixes neither max_ts nor the unit; the low part must stay below 10^10 to
	// leave the points' digits alone, which rules out milliseconds (today ≈ 1.8×10^12), so ts
	// is in seconds and max_ts the largest ten-digit number (year 2286). Every score is a
	// whole number, exact while |score| ≤ 2^53 − 1, so |points| ≤ E10MaxPoints (900,718).
	// Time resolution is one second at every magnitude.
	TieBreakFirstReachedE10 TieBreak = "first_reached_e10"

	// TieBreakFirstReachedWide is zpulse's earlier encoding, kept for boards written with it
	// and for points beyond the article encoding's range:
	//
	//	score = points + (2^30 − 1 − s) / 2^30   s = whole seconds since 2025-01-01T00:00:00Z
	//
	// Range: |points| ≤ WideMaxPoints (2^23 − 1 = 8,388,607), times 2025-01-01 to
	// 2059-01-10T13:37:03Z; resolution one second at every magnitude (the denominator is a
	// power of two, so every score is exact). Its fractions are not comparable with the
	// article's: do not mix it with a service that writes the article's encoding.
	TieBreakFirstReachedWide TieBreak = "first_reached_wide"
)

// TieBreaks lists the encodings in the order the settings form offers them.
var TieBreaks = []TieBreak{TieBreakNone, TieBreakFirstReached, TieBreakFirstReachedE10, TieBreakFirstReachedWide}

// Limits of the encodings (see each TieBreak).
const (
	FirstReachedMaxPoints = 1<<20 - 1 // 1,048,575
	E10MaxPoints          = 900_718   // ⌊(2^53 − 1 − E10MaxTS) / 10^10⌋
	E10MaxTS              = 9_999_999_999
	E10Scale              = 10_000_000_000
	WideMaxPoints         = 1<<23 - 1 // 8,388,607
	WideSlots             = 1 << 30   // distinct seconds: ≈ 34 years
	wideEpochUnix         = 1_735_689_600
)

// WideEpoch is the first instant the wide encoding can represent; the last is
// WideEpoch + WideSlots − 1 seconds.
var WideEpoch = time.Unix(wideEpochUnix, 0).UTC()

// Valid says whether t is one of the encodings.
func (t TieBreak) Valid() bool {
	for _, v := range TieBreaks {
		if t == v {
			return true
		}
	}
	return false
}

// Timed says whether the encoding carries a time (first to reach ranks higher).
func (t TieBreak) Timed() bool { return t != TieBreakNone && t.Valid() }

// MaxPoints is the largest |points| a board with this encoding holds exactly.
func (t TieBreak) MaxPoints() int64 {
	switch t {
	case TieBreakFirstReached:
		return FirstReachedMaxPoints
	case TieBreakFirstReachedE10:
		return E10MaxPoints
	case TieBreakFirstReachedWide:
		return WideMaxPoints
	}
	return MaxSafeScore
}

// Points returns the true points a score stands for under the encoding.
func (t TieBreak) Points(score float64) int64 {
	if t == TieBreakFirstReachedE10 {
		if math.Abs(score) > MaxSafeScore {
			return int64(math.Floor(score / E10Scale))
		}
		n := int64(score) // exact: the score is a whole number within ±2^53
		p := n / E10Scale
		if n%E10Scale < 0 {
			p-- // floor, not truncation, for negative points
		}
		return p
	}
	return int64(math.Floor(score))
}

// Encode returns the score of points reached at the given time, as the board's write script
// computes it (the scripts are the writers; this is their reference, for tests and readers).
// Returns EINVALID when the points or the time are outside the encoding's range.
func (t TieBreak) Encode(points int64, at time.Time) (float64, error) {
	if max := t.MaxPoints(); points < -max || points > max {
		return 0, FieldErrorf("points", EINVALID, "points must be a whole number from %d to %d on %s", -max, max, t.Describe())
	}
	switch t {
	case TieBreakFirstReached:
		ms := at.UnixMilli()
		if ms < 1e12 || ms >= 1e13 {
			return 0, Errorf(EINVALID, "first_reached scores can be written between 2001-09-09 and 2286-11-20 only")
		}
		return float64(points) + (1.0 - float64(ms)/1e13), nil
	case TieBreakFirstReachedE10:
		ts := at.Unix()
		if ts < 0 || ts > E10MaxTS {
			return 0, Errorf(EINVALID, "first_reached_e10 scores can be written between 1970 and 2286-11-20 only")
		}
		return float64(points*E10Scale + (E10MaxTS - ts)), nil
	case TieBreakFirstReachedWide:
		s := at.Unix() - wideEpochUnix
		if s < 0 || s >= WideSlots {
			return 0, Errorf(EINVALID, "tie-break scores can be written between %s and %s only",
				WideEpoch.Format(time.RFC3339), WideEpoch.Add((WideSlots-1)*time.Second).Format(time.RFC3339))
		}
		return float64(points) + float64(WideSlots-1-s)/WideSlots, nil
	}
	return float64(points), nil
}

// ResolutionAt is the encoding's time resolution at a number of points: writes at least
// twice this far apart always get different scores (closer ones may share one, never
// invert). Zero for TieBreakNone, which carries no time.
func (t TieBreak) ResolutionAt(points int64) time.Duration {
	switch t {
	case TieBreakFirstReached:
		// The spacing of doubles near |points| + 1, in units of 1e-13 (one ms), never finer
		// than the article's whole milliseconds.
		x := math.Abs(float64(points)) + 1
		ulp := math.Nextafter(x, math.Inf(1)) - x
		ms := ulp * 1e13
		if ms < 1 {
			ms = 1
		}
		return time.Duration(ms * float64(time.Millisecond))
	case TieBreakFirstReachedE10, TieBreakFirstReachedWide:
		return time.Second
	}
	return 0
}

// Describe names the encoding for messages: "a first-to-reach board (main article's
// encoding)".
func (t TieBreak) Describe() string {
	switch t {
	case TieBreakFirstReached:
		return "a first-to-reach board (the main article's points + 1 − ms/1e13)"
	case TieBreakFirstReachedE10:
		return "a first-to-reach board (the second article's points × 10^10 + (max_ts − ts))"
	case TieBreakFirstReachedWide:
		return "a first-to-reach board (zpulse's wide encoding)"
	}
	return "a board"
}

// RangeText says the encoding's points range and time resolution for people.
func (t TieBreak) RangeText() string {
	switch t {
	case TieBreakFirstReached:
		return fmt.Sprintf("points up to ±%d; time to the ms at 100 points, 18 ms at 10,000, 1.2 s at 1,000,000", int64(FirstReachedMaxPoints))
	case TieBreakFirstReachedE10:
		return fmt.Sprintf("points up to ±%d; time to the second", int64(E10MaxPoints))
	case TieBreakFirstReachedWide:
		return fmt.Sprintf("points up to ±%d; time to the second, 2025 to 2059", int64(WideMaxPoints))
	}
	return fmt.Sprintf("points up to ±%d; equal points by player id", int64(MaxSafeScore))
}
