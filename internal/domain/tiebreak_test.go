package domain

import (
	"testing"
	"time"
)

// Every encoding gives back the points it encoded, at both ends of its points range and of
// its time range.
func TestTieBreakPointsRoundTrip(t *testing.T) {
	times := map[TieBreak][]time.Time{
		TieBreakNone:             {time.Unix(0, 0)},
		TieBreakFirstReached:     {time.UnixMilli(1e12), time.UnixMilli(1e13 - 1)},
		TieBreakFirstReachedE10:  {time.Unix(0, 0), time.Unix(E10MaxTS, 0)},
		TieBreakFirstReachedWide: {WideEpoch, WideEpoch.Add((WideSlots - 1) * time.Second)},
	}
	for _, enc := range TieBreaks {
		max := enc.MaxPoints()
		for _, at := range times[enc] {
			for _, p := range []int64{-max, -max + 1, -1, 0, 1, 100, 10_000, max - 1, max} {
				s, err := enc.Encode(p, at)
				if err != nil {
					t.Fatalf("%s Encode(%d, %v): %v", enc, p, at, err)
				}
				if got := enc.Points(s); got != p {
					t.Errorf("%s: Points(Encode(%d, %v) = %v) = %d", enc, p, at, s, got)
				}
			}
		}
		if _, err := enc.Encode(max+1, times[enc][0]); ErrorCode(err) != EINVALID {
			t.Errorf("%s: Encode(max+1) = %v", enc, err)
		}
	}
}
