package domain

// A chart is drawn at absolute times and the browser slides it (views/history.go, app.js),
// so that an idle chart needs no frame: Settle keeps only what a bucket's value can change.
// A bucket is quiet when it adds nothing to what is drawn: recorded, right after a recorded
// bucket, its counters and durations 0 and its gauges those of the bucket before. The chart
// draws, after its last bucket, that bucket's gauges and zero counters up to the browser's
// now (the zero extension); so quiet buckets after the last one that is not are left out, and
// so are unrecorded ones (a recorder that stopped shows its gap once it records again, or on
// a reload). Before the first bucket, a quiet run that the window cuts (the window's first
// bucket calm, with its quiet followers) is kept as its values (Carry), which the chart draws
// from before the window's left edge: it changes only when its run ends inside the window
// and the next bucket slides out. Leading unrecorded buckets are left out (a gap).

// Settle returns h as its chart draws it: equal while only quiet buckets land and the window
// slides over them. A settled history is returned as is.
func (h History) Settle() History {
	if h.Settled {
		return h
	}
	out := h
	out.Settled, out.Buckets, out.Carry = true, nil, nil
	b := h.Buckets
	if len(b) > 0 {
		out.EndMs = b[len(b)-1].AtMs + h.StepMs
	}
	last := -1
	for i := range b {
		if b[i].Recorded && (i == 0 || !h.quiet(b[i-1], b[i])) {
			last = i
		}
	}
	if last < 0 {
		return out
	}
	first := 0
	for first < len(b) && !b[first].Recorded {
		first++
	}
	if first == 0 && h.calm(b[0]) {
		for first+1 < len(b) && h.quiet(b[first], b[first+1]) {
			first++
		}
		out.Carry = append([]int64(nil), b[0].Values...)
		first++
	}
	if first <= last {
		out.Buckets = append([]HistoryBucket(nil), b[first:last+1]...)
	}
	return out
}

// calm says a recorded bucket's counters and durations are all 0.
func (h History) calm(b HistoryBucket) bool {
	if !b.Recorded {
		return false
	}
	for k, s := range h.Series {
		if s.Kind != Gauge && k < len(b.Values) && b.Values[k] != 0 {
			return false
		}
	}
	return true
}

// quiet says b, right after prev, adds nothing to the chart: calm, with prev's gauges.
func (h History) quiet(prev, b HistoryBucket) bool {
	if !prev.Recorded || !h.calm(b) || len(prev.Values) != len(b.Values) {
		return false
	}
	for k, s := range h.Series {
		if s.Kind == Gauge && b.Values[k] != prev.Values[k] {
			return false
		}
	}
	return true
}
