package domain

import (
	"reflect"
	"testing"
)

// boardWindow is a board's 1 h window of n buckets from bucket start on (10 s each), the
// recorded ones from values (bucket → players, adds).
func boardWindow(start, n int64, values func(i int64) ([]int64, bool)) History {
	h := History{Kind: HistoryBoard, Name: "b", Range: HistoryHour, StepMs: 10_000, Series: HistorySeries[HistoryBoard][:2]} // players and adds
	for i := start; i < start+n; i++ {
		b := HistoryBucket{AtMs: i * 10_000}
		b.Values, b.Recorded = values(i)
		h.Buckets = append(h.Buckets, b)
	}
	return h
}

// A chart's snapshot stays equal while quiet buckets land and the window slides over them,
// whether the window begins unrecorded, with a run it cuts, or is that run alone (a page
// that sat longer than its range); a bucket that counts something, a gauge that moves, or a
// drawn bucket that leaves the range changes it. Settling twice is settling once.
func TestSettleIgnoresQuietBuckets(t *testing.T) {
	t.Parallel()
	// Recorded from bucket 100 on: 7 players, 3 adds in bucket 120, 9 players from 150.
	values := func(i int64) ([]int64, bool) {
		switch {
		case i < 100:
			return nil, false
		case i == 120:
			return []int64{7, 3}, true
		case i >= 150:
			return []int64{9, 0}, true
		}
		return []int64{7, 0}, true
	}
	settled := func(end int64) History { return boardWindow(end-360+1, 360, values).Settle() }
	same := func(a, b int64) bool { return reflect.DeepEqual(settled(a).withoutEnd(), settled(b).withoutEnd()) }
	if !same(160, 200) || !same(200, 300) {
		t.Error("quiet buckets after bucket 150 changed the snapshot")
	}
	if s := settled(200); s.Carry != nil || len(s.Buckets) != 51 || s.Buckets[0].AtMs != 1_000_000 {
		t.Errorf("a window beginning unrecorded: carry %v, %d buckets from %d; want none, 51 from bucket 100", s.Carry, len(s.Buckets), s.Buckets[0].AtMs)
	}
	if same(149, 150) || same(120, 119) {
		t.Error("a moving gauge or a bucket with adds left the snapshot as it was")
	}
	if !same(460, 465) || same(479, 480) {
		t.Error("while the window cuts the run before bucket 120, only bucket 120 leaving should change the snapshot")
	}
	if s := settled(460); !reflect.DeepEqual(s.Carry, []int64{7, 0}) || s.Buckets[0].AtMs != 1_200_000 {
		t.Errorf("a cut run: carry %v, first bucket %d; want [7 0] before bucket 120", s.Carry, s.Buckets[0].AtMs)
	}
	if s := settled(600); !reflect.DeepEqual(s.Carry, []int64{9, 0}) || s.Buckets != nil || !same(600, 5000) {
		t.Errorf("sat longer than the range: carry %v, buckets %v; want [9 0] alone, staying so", s.Carry, s.Buckets)
	}
	// A recorder that stopped after bucket 200: the extension is drawn until it records again.
	stopped := boardWindow(200-359, 360, func(i int64) ([]int64, bool) {
		if i > 200 {
			return nil, false
		}
		return values(i)
	}).Settle()
	if !reflect.DeepEqual(stopped.withoutEnd(), settled(200).withoutEnd()) {
		t.Error("trailing unrecorded buckets changed the snapshot")
	}
	if s := settled(200); !reflect.DeepEqual(s.Settle(), s) {
		t.Error("settling a settled history changed it")
	}
}

func (h History) withoutEnd() History { h.EndMs = 0; return h }
