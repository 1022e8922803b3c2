package views

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// The history charts are drawn here, on the server, as SVG: no chart library and no script
// in the browser, and nothing but classes for colours (the CSP forbids inline styles), so
// light and dark follow the page. Buckets are merged into columns (30 s over 1 h, 10 min over
// 24 h) so a chart stays a few kilobytes; each column is focusable and carries its values in
// a <title>, which browsers show on hover and screen readers read on focus. The axis labels
// are drawn 2.4 times larger below the sm breakpoint, where the chart is shrunk about as much,
// so they stay readable on a phone (the y labels then reach into the card's padding).

const (
	chartW, chartH          = 720, 180
	plotL, plotR            = 44, 712 // the plot's left and right edges in the viewBox
	plotT, plotB            = 12, 148 // its top and bottom
	hourColumns, dayColumns = 120, 144
)

// HistoryChartID is the id of an entity's chart block, which the live fragment replaces.
func HistoryChartID(kind domain.HistoryKind, name string) string {
	return domID("history-"+string(kind), name)
}

// chartSeries is one drawn series of a chart.
type chartSeries struct {
	Name, Label string
	Stroke      string // classes of the line
	Swatch      string // classes of the legend's swatch
	Dash        string // stroke-dasharray, so series differ by more than colour
	Lines       []string
	Sum         int64 // counters: the sum over the range; gauges: the newest value; durations: the largest
	SumText     string
}

// chartColumn is one focusable column of a chart with its values for people.
type chartColumn struct {
	X, W  string
	Title string
}

// chartTick is a label on an axis.
type chartTick struct {
	X, Y   string
	Label  string
	Anchor string // text-anchor: the end labels stay inside the chart
	Minor  bool   // left out on a phone, where the labels are larger (every other time label)
}

// historyChart is one chart of a history: its gauges or its counters.
type historyChart struct {
	ID       string
	Title    string
	Caption  string // what the values are, for people and aria
	Series   []chartSeries
	Columns  []chartColumn
	XTicks   []chartTick
	YTicks   []chartTick
	Recorded int // buckets recorded in the range
}

var seriesColours = map[string][2]string{
	"waiting":   {"stroke-indigo-600 dark:stroke-indigo-400", "bg-indigo-600 dark:bg-indigo-400"},
	"scheduled": {"stroke-sky-600 dark:stroke-sky-400", "bg-sky-600 dark:bg-sky-400"},
	"in_flight": {"stroke-amber-600 dark:stroke-amber-400", "bg-amber-600 dark:bg-amber-400"},
	"dead":      {"stroke-rose-600 dark:stroke-rose-400", "bg-rose-600 dark:bg-rose-400"},
	"enqueued":  {"stroke-indigo-600 dark:stroke-indigo-400", "bg-indigo-600 dark:bg-indigo-400"},
	"completed": {"stroke-emerald-600 dark:stroke-emerald-400", "bg-emerald-600 dark:bg-emerald-400"},
	"failed":    {"stroke-rose-600 dark:stroke-rose-400", "bg-rose-600 dark:bg-rose-400"},
	"allowed":   {"stroke-emerald-600 dark:stroke-emerald-400", "bg-emerald-600 dark:bg-emerald-400"},
	"rejected":  {"stroke-rose-600 dark:stroke-rose-400", "bg-rose-600 dark:bg-rose-400"},
	"players":   {"stroke-indigo-600 dark:stroke-indigo-400", "bg-indigo-600 dark:bg-indigo-400"},
	"adds":      {"stroke-emerald-600 dark:stroke-emerald-400", "bg-emerald-600 dark:bg-emerald-400"},
	"p50_ms":    {"stroke-emerald-600 dark:stroke-emerald-400", "bg-emerald-600 dark:bg-emerald-400"},
	"p95_ms":    {"stroke-amber-600 dark:stroke-amber-400", "bg-amber-600 dark:bg-amber-400"},
	"max_ms":    {"stroke-rose-600 dark:stroke-rose-400", "bg-rose-600 dark:bg-rose-400"},
}

var dashes = []string{"", "6 3", "2 3", "8 3 2 3"}

// historyCharts splits a history into its charts: gauges ("Depth", "Players") first, then
// counters, then durations (a queue's lease-to-ack times), each with the series of that kind.
func historyCharts(h domain.History) []historyChart {
	var out []historyChart
	for _, kind := range []domain.SeriesKind{domain.Gauge, domain.Counter, domain.Duration} {
		var idx []int
		for i, s := range h.Series {
			if s.Kind == kind {
				idx = append(idx, i)
			}
		}
		if len(idx) > 0 {
			out = append(out, buildChart(h, kind, idx))
		}
	}
	return out
}

func buildChart(h domain.History, kind domain.SeriesKind, idx []int) historyChart {
	cols := hourColumns
	if h.Range == domain.HistoryDay {
		cols = dayColumns
	}
	per := max(len(h.Buckets)/cols, 1)
	cols = (len(h.Buckets) + per - 1) / per
	c := historyChart{ID: HistoryChartID(h.Kind, h.Name) + "-" + strconv.Itoa(int(kind))}
	stepName := "per " + formatMs(h.StepMs*int64(per))
	label := FormatCount
	switch kind {
	case domain.Gauge:
		c.Title = map[domain.HistoryKind]string{domain.HistoryQueue: "Jobs by state", domain.HistoryBoard: "Players"}[h.Kind]
		c.Caption = "sampled every 10 s; each point is the last sample of its " + formatMs(h.StepMs*int64(per))
	case domain.Duration:
		c.Title = "Time from lease to ack"
		c.Caption = "p50, p95 and max of each " + formatMs(h.StepMs) + ", the largest of each " + formatMs(h.StepMs*int64(per)) + "; quantiles to within their histogram bucket"
		label = formatMs
	default:
		c.Title = map[domain.HistoryKind]string{domain.HistoryQueue: "Throughput", domain.HistoryLimiter: "Checks", domain.HistoryBoard: "Point writes"}[h.Kind]
		c.Caption = "counted " + stepName + " (through zpulse)"
	}
	// values[col][k]: the column's value of series idx[k]; ok[col]: any bucket recorded.
	values := make([][]int64, cols)
	ok := make([]bool, cols)
	for j, b := range h.Buckets {
		col := j / per
		if values[col] == nil {
			values[col] = make([]int64, len(idx))
		}
		if !b.Recorded {
			continue
		}
		c.Recorded++
		ok[col] = true
		for k, i := range idx {
			switch kind {
			case domain.Counter:
				values[col][k] += b.Values[i]
			case domain.Duration:
				values[col][k] = max(values[col][k], b.Values[i])
			default:
				values[col][k] = b.Values[i] // the newest sample of the column
			}
		}
	}
	top := int64(0)
	for col := range values {
		for _, v := range values[col] {
			top = max(top, v)
		}
	}
	top = niceCeil(top)
	colW := float64(plotR-plotL) / float64(cols)
	x := func(col int) float64 { return plotL + colW*(float64(col)+0.5) }
	y := func(v int64) float64 { return plotB - float64(plotB-plotT)*float64(v)/float64(top) }
	for k, i := range idx {
		info := h.Series[i]
		s := chartSeries{Name: info.Name, Label: info.Label, Stroke: seriesColours[info.Name][0], Swatch: seriesColours[info.Name][1], Dash: dashes[k%len(dashes)]}
		var pts []string
		flush := func() {
			if len(pts) == 1 { // a lone point still shows: a short flat segment
				p := strings.Split(pts[0], ",")
				xv, _ := strconv.ParseFloat(p[0], 64)
				pts = []string{fnum(xv-colW/3) + "," + p[1], fnum(xv+colW/3) + "," + p[1]}
			}
			if len(pts) > 0 {
				s.Lines = append(s.Lines, strings.Join(pts, " "))
			}
			pts = nil
		}
		for col := range cols {
			if !ok[col] {
				flush()
				continue
			}
			pts = append(pts, fnum(x(col))+","+fnum(y(values[col][k])))
			switch kind {
			case domain.Counter:
				s.Sum += values[col][k]
			case domain.Duration:
				s.Sum = max(s.Sum, values[col][k])
			default:
				s.Sum = values[col][k]
			}
		}
		flush()
		s.SumText = label(s.Sum)
		c.Series = append(c.Series, s)
	}
	for col := range cols {
		from := h.Buckets[col*per].AtMs
		to := from + h.StepMs*int64(per)
		title := clockLabel(from) + "–" + clockLabel(to) + " UTC"
		if !ok[col] {
			title += ": not recorded"
		} else {
			parts := make([]string, len(idx))
			for k, i := range idx {
				parts[k] = h.Series[i].Label + " " + label(values[col][k])
			}
			title += ": " + strings.Join(parts, ", ")
		}
		c.Columns = append(c.Columns, chartColumn{X: fnum(plotL + colW*float64(col)), W: fnum(colW), Title: title})
	}
	// Time labels every quarter of the range, on the bucket boundaries.
	for q := 0; q <= 4; q++ {
		j := min(q*len(h.Buckets)/4, len(h.Buckets)-1)
		at := h.Buckets[j].AtMs
		if q == 4 {
			at += h.StepMs
		}
		tick := chartTick{X: fnum(plotL + float64(plotR-plotL)*float64(q)/4), Y: strconv.Itoa(plotB + 16), Label: clockLabel(at), Anchor: "middle", Minor: q%2 == 1}
		switch q {
		case 0:
			tick.Anchor = "start"
		case 4:
			tick.Anchor, tick.Label = "end", tick.Label+" UTC"
		}
		c.XTicks = append(c.XTicks, tick)
	}
	for _, v := range []int64{0, top / 2, top} {
		c.YTicks = append(c.YTicks, chartTick{X: strconv.Itoa(plotL - 6), Y: fnum(y(v) + 3), Label: label(v), Anchor: "end"})
	}
	return c
}

// niceCeil rounds a chart's top up to 1, 2 or 5 times a power of ten (at least 4, so the
// middle line is a whole number).
func niceCeil(v int64) int64 {
	if v <= 4 {
		return 4
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v && (m*p)%2 == 0 {
				return m * p
			}
		}
	}
}

func fnum(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// clockLabel shows an instant as the chart does: hours and minutes, UTC, with the seconds
// when they are not 0 (the 1 h range's 10 s buckets).
func clockLabel(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	if t.Second() != 0 {
		return t.Format("15:04:05")
	}
	return t.Format("15:04")
}

// historyRangeURL is the page's own URL with another range.
func historyRangeURL(path string, r domain.HistoryRange) string {
	u, err := url.Parse(path)
	if err != nil {
		return "?range=" + string(r)
	}
	q := u.Query()
	q.Set("range", string(r))
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

func rangeLabel(r domain.HistoryRange) string {
	if r == domain.HistoryDay {
		return "24 h"
	}
	return "1 h"
}
