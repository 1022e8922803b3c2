package domain

import (
	"math"
	"time"
)

// The "first to reach ranks higher" encoding. A score holds the integer points and an
// inverted time in one double:
//
//	score = points + (TieBreakSlots − 1 − t) / TieBreakSlots
//	t     = whole seconds since TieBreakEpoch, 0 ≤ t < TieBreakSlots
//
// The fraction is larger for earlier times, so of two players with equal points the one who
// reached them first ranks higher, and floor(score) is always the points, exactly as for the
// articles' addPointsWithTieBreak (points + 1 − ms/1e13), whose boards zpulse therefore shows
// right too. The denominator is a power of two, so every score is exact while
// |points| ≤ TieBreakMaxPoints: 23 bits of points and 30 bits of time fill the 53-bit mantissa.
//
// Time resolution is one second: players who reach equal points within the same second are
// ordered as Redis orders equal scores (by member, descending in ZREVRANGE). Clock skew of
// milliseconds between zpulse instances is far below that resolution.
const (
	TieBreakSlots     = 1 << 30       // distinct times: 2^30 seconds ≈ 34 years
	TieBreakMaxPoints = 1<<23 - 1     // 8,388,607: the largest |points| a tie-break board holds
	tieBreakEpochUnix = 1_735_689_600 // 2025-01-01T00:00:00Z
)

// TieBreakEpoch is the first instant the encoding can represent; the last is
// TieBreakEpoch + TieBreakSlots − 1 seconds (2059-01-10T13:37:03Z).
var TieBreakEpoch = time.Unix(tieBreakEpochUnix, 0).UTC()

// TieBreakTime returns t's slot: seconds since TieBreakEpoch. Returns EINVALID when t is
// outside the encoding's range of times.
func TieBreakTime(t time.Time) (int64, error) {
	s := t.Unix() - tieBreakEpochUnix
	if s < 0 || s >= TieBreakSlots {
		return 0, Errorf(EINVALID, "tie-break scores can be written between %s and %s only",
			TieBreakEpoch.Format(time.RFC3339), TieBreakEpoch.Add((TieBreakSlots-1)*time.Second).Format(time.RFC3339))
	}
	return s, nil
}

// TieBreakScore encodes points reached at slot t (see TieBreakTime).
func TieBreakScore(points, t int64) float64 {
	return float64(points) + float64(TieBreakSlots-1-t)/TieBreakSlots
}

// Points returns the whole points a score stands for: the score itself for plain boards,
// floor(score) for tie-break scores (zpulse's or the articles').
func Points(score float64) int64 { return int64(math.Floor(score)) }
