package domain

import "math"

// How long jobs take: the time from a lease to its ack, counted by zpulse's ack script into
// fixed buckets (per 10 s for the history, and in all for /metrics), so memory is fixed
// whatever the traffic and quantiles are read from the buckets.

// DurationBoundsMs are the upper bounds, in ms, of the buckets a lease-to-ack time is counted
// in (a time equal to a bound is in that bucket); one more bucket holds what is longer than
// the last. A quantile is known to within its bucket: see DurationHistogram.Quantile.
var DurationBoundsMs = []int64{10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000}

// DurationHistogram is a set of lease-to-ack times counted into the DurationBoundsMs buckets.
type DurationHistogram struct {
	Counts []int64 // per bucket, len(DurationBoundsMs)+1; nil: none
	SumMs  int64   // the times added up
	MaxMs  int64   // the longest; 0 when unknown
}

// DurationBucket is the index of the bucket of a time of ms.
func DurationBucket(ms int64) int {
	for i, b := range DurationBoundsMs {
		if ms <= b {
			return i
		}
	}
	return len(DurationBoundsMs)
}

// Count is how many times the histogram holds.
func (h DurationHistogram) Count() int64 {
	n := int64(0)
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Merge adds o's counts to h's (and keeps the larger max).
func (h DurationHistogram) Merge(o DurationHistogram) DurationHistogram {
	out := DurationHistogram{Counts: make([]int64, len(DurationBoundsMs)+1), SumMs: h.SumMs + o.SumMs, MaxMs: max(h.MaxMs, o.MaxMs)}
	for _, cs := range [][]int64{h.Counts, o.Counts} {
		for i := range min(len(cs), len(out.Counts)) {
			out.Counts[i] += cs[i]
		}
	}
	return out
}

// Quantile estimates the q-quantile (0 < q ≤ 1) in ms as Prometheus's histogram_quantile
// does: linearly within the bucket the rank falls in, so it is exact to within that bucket's
// bounds; the last bucket's upper bound, and every estimate, is capped at MaxMs when known.
// 0 when the histogram is empty.
func (h DurationHistogram) Quantile(q float64) int64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := q * float64(n)
	seen := int64(0)
	for i, c := range h.Counts {
		if c == 0 || float64(seen+c) < rank {
			seen += c
			continue
		}
		lo := int64(0)
		if i > 0 {
			lo = DurationBoundsMs[i-1]
		}
		hi := h.MaxMs
		if i < len(DurationBoundsMs) && (h.MaxMs == 0 || DurationBoundsMs[i] < h.MaxMs) {
			hi = DurationBoundsMs[i]
		}
		hi = max(hi, lo)
		v := float64(lo) + float64(hi-lo)*(rank-float64(seen))/float64(c)
		if h.MaxMs > 0 {
			v = min(v, float64(h.MaxMs))
		}
		return int64(math.Round(v))
	}
	return h.MaxMs
}
