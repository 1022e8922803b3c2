package views

import (
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// queueHistory is a 1 h queue history with the given buckets recorded (index -> values).
func queueHistory(r domain.HistoryRange, recorded map[int][]int64) domain.History {
	n := r.Buckets()
	h := domain.History{Kind: domain.HistoryQueue, Name: "mail", Range: r, StepMs: r.Step().Milliseconds(),
		Series: domain.HistorySeries[domain.HistoryQueue], Buckets: make([]domain.HistoryBucket, n)}
	start := time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC).UnixMilli()
	for i := range h.Buckets {
		h.Buckets[i].AtMs = start + int64(i)*h.StepMs
		if v, ok := recorded[i]; ok {
			h.Buckets[i].Recorded, h.Buckets[i].Values = true, v
		}
	}
	return h
}

// Columns merge buckets: counters add up, gauges keep the newest sample, durations the
// largest; an unrecorded gap breaks the line instead of drawing zeros.
func TestHistoryChartsMergeAndGap(t *testing.T) {
	h := queueHistory(domain.HistoryHour, map[int][]int64{
		0: {5, 0, 1, 0, 2, 1, 0, 40, 90, 120}, 1: {7, 0, 1, 0, 3, 2, 1, 30, 200, 250}, // column 0 (buckets 0..2)
		9: {1, 0, 0, 0, 4, 4, 0, 0, 0, 0}, // column 3, after a gap
	})
	charts := historyCharts(h)
	if len(charts) != 3 {
		t.Fatalf("%d charts, want gauges, counters and durations", len(charts))
	}
	gauges, counters, durations := charts[0], charts[1], charts[2]
	if got := durations.Columns[0].Title; !strings.Contains(got, "p50 40 ms, p95 200 ms, max 250 ms") {
		t.Errorf("first column's durations %q: want the largest of each series", got)
	}
	if s := durations.Series[2]; s.Name != "max_ms" || s.Sum != 250 || s.SumText != "250 ms" {
		t.Errorf("max: %d (%q), want the largest over the range, 250 ms", s.Sum, s.SumText)
	}
	if len(gauges.Columns) != 5 || gauges.Recorded != 3 {
		t.Errorf("%d columns, %d recorded; want 5 (4 of buckets, the extension) and 3", len(gauges.Columns), gauges.Recorded)
	}
	if got := counters.Columns[4].Title; got != "from 11:02 UTC: Enqueued 0, Completed 0, Failed 0 per 30 s" {
		t.Errorf("the extension's title %q: want counters 0 after the last bucket", got)
	}
	if got := gauges.Columns[0].Title; !strings.Contains(got, "Waiting 7") || !strings.HasPrefix(got, "11:00–11:00:30 UTC") {
		t.Errorf("first column's title %q: want the newest waiting sample (7) over 11:00–11:00:30", got)
	}
	if got := counters.Columns[0].Title; !strings.Contains(got, "Enqueued 5") || !strings.Contains(got, "Failed 1") {
		t.Errorf("first column's title %q: want the enqueues added up (5)", got)
	}
	if got := counters.Columns[1].Title; !strings.HasSuffix(got, "not recorded") {
		t.Errorf("a gap's title %q", got)
	}
	if s := counters.Series[0]; s.Name != "enqueued" || s.Sum != 9 || len(s.Lines) != 2 {
		t.Errorf("enqueued: sum %d in %d lines, want 9 in 2 (broken by the gap)", s.Sum, len(s.Lines))
	}
	if s := gauges.Series[0]; s.Sum != 1 {
		t.Errorf("waiting shows %d, want the newest sample, 1", s.Sum)
	}
	if day := historyCharts(queueHistory(domain.HistoryDay, nil)); len(day[0].Columns) != 0 || day[0].Recorded != 0 {
		t.Errorf("24 h: %d columns, %d recorded", len(day[0].Columns), day[0].Recorded)
	}
}

func TestNiceCeil(t *testing.T) {
	for v, want := range map[int64]int64{0: 4, 3: 4, 5: 10, 10: 10, 11: 20, 21: 50, 99: 100, 101: 200, 4_000_000_001: 5_000_000_000} {
		if got := niceCeil(v); got != want {
			t.Errorf("niceCeil(%d) = %d, want %d", v, got, want)
		}
	}
}

// A duration column where no job was acked is a gap, not 0 ms, and nothing extends the last
// one; app.js gets what it needs to shade the column in progress (data-chart-col).
func TestHistoryChartsDurationGapsAndPartialColumn(t *testing.T) {
	n := domain.HistoryHour.Buckets()
	rec := map[int][]int64{
		n - 7: {1, 0, 0, 0, 1, 1, 0, 40, 90, 120},
		n - 5: {1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // recorded, no ack
		n - 2: {1, 0, 0, 0, 2, 2, 0, 50, 60, 70},
	}
	h := queueHistory(domain.HistoryHour, rec)
	durations := historyCharts(h)[2]
	if s := durations.Series[0]; len(s.Lines) != 2 {
		t.Errorf("p50: %d lines %q; want 2, broken where nothing was acked, with no extension", len(s.Lines), s.Lines)
	}
	for _, l := range durations.Series[0].Lines {
		if strings.HasSuffix(l, ","+fnum(plotB)) {
			t.Errorf("a duration line drops to 0 ms: %q", l)
		}
	}
	var b strings.Builder
	if err := HistoryPanel(h).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `data-chart-col="30000"`) || !strings.Contains(b.String(), "data-chart-partial") {
		t.Error("the panel gives app.js no column to shade in progress")
	}
}
