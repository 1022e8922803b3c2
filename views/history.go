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
	Q      string // a time label's quarter of the window, for app.js
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
	Recorded int // buckets recorded in the range (a carried-in run counts one)
	// The plot's slide (app.js): its origin (epoch ms of x 0; "" when it has none: the whole
	// window is one carried-in run), range and bucket step in ms, and its viewBox as drawn.
	Origin, RangeMs, StepMs, ViewBox string
	// ColMs is a column's width in ms: app.js shades the column still in progress at the
	// browser's now (data-chart-partial), so that a low last point does not read as a drop.
	ColMs string
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
	h = h.Settle()
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

// chartColumnOf is a column of buckets drawn: its start and its values (values[k] of series
// idx[k]), ok when any of its buckets was recorded.
type chartColumnOf struct {
	at     int64
	ok     bool
	values []int64
}

// buildChart draws h (settled: domain.History.Settle) at absolute times: x is the time from
// the first column's start (the origin), so nothing drawn depends on when it was read, and
// app.js moves the plot's viewBox to the range before the browser's now. The carried-in run
// is drawn from two ranges before the origin and the zero extension (the last bucket's
// gauges, counters 0) to two ranges after the last column, so that the slide only ever
// shows what a bucket that does not land would: only a bucket that lands otherwise (a frame)
// changes the picture.
func buildChart(h domain.History, kind domain.SeriesKind, idx []int) historyChart {
	cols := hourColumns
	if h.Range == domain.HistoryDay {
		cols = dayColumns
	}
	colMs := h.StepMs * int64(max(h.Range.Buckets()/cols, 1))
	c := historyChart{ID: HistoryChartID(h.Kind, h.Name) + "-" + strconv.Itoa(int(kind))}
	label := chartTitle(&c, h, kind, colMs)
	columns, recorded := chartColumns(h, kind, idx, colMs)
	c.Recorded = recorded
	var carry, ext []int64 // the carried-in run's values and the extension's
	if h.Carry != nil {
		carry = pickGauges(h, idx, h.Carry)
		ext = carry
		c.Recorded++
	}
	if n := len(h.Buckets); n > 0 {
		ext = pickGauges(h, idx, h.Buckets[n-1].Values)
	}
	top := int64(0)
	for _, v := range append(append([]int64(nil), carry...), ext...) {
		top = max(top, v)
	}
	for _, col := range columns {
		for _, v := range col.values {
			top = max(top, v)
		}
	}
	g := chartGeom{colMs: colMs, rangeMs: colMs * int64(cols), plotW: float64(plotR - plotL), top: niceCeil(top)}
	g.colW = g.plotW / float64(cols)
	if len(columns) > 0 {
		g.origin = columns[0].at
		c.Origin = strconv.FormatInt(g.origin, 10)
	}
	for k, i := range idx {
		c.Series = append(c.Series, chartLine(g, h.Series[i], k, kind, columns, carry, ext, label))
	}
	c.Columns = chartHovers(g, h, idx, columns, carry, ext, label)
	chartAxes(&c, g, h, label)
	return c
}

// chartTitle sets c's title and caption for kind, and returns how its values read.
func chartTitle(c *historyChart, h domain.History, kind domain.SeriesKind, colMs int64) func(int64) string {
	switch kind {
	case domain.Gauge:
		c.Title = map[domain.HistoryKind]string{domain.HistoryQueue: "Jobs by state", domain.HistoryBoard: "Players"}[h.Kind]
		c.Caption = "sampled every 10 s; each point is the last sample of its " + formatMs(colMs)
	case domain.Duration:
		c.Title = "Time from lease to ack"
		c.Caption = "p50, p95 and max of each " + formatMs(h.StepMs) + ", the largest of each " + formatMs(colMs) + "; quantiles to within their histogram bucket"
		return formatMs
	default:
		c.Title = map[domain.HistoryKind]string{domain.HistoryQueue: "Throughput", domain.HistoryLimiter: "Checks", domain.HistoryBoard: "Point writes"}[h.Kind]
		c.Caption = "counted per " + formatMs(colMs) + " (through zpulse)"
	}
	return FormatCount
}

// pickGauges is the series idx of a bucket's values, counters and durations 0.
func pickGauges(h domain.History, idx []int, values []int64) []int64 {
	out := make([]int64, len(idx))
	for k, i := range idx {
		if h.Series[i].Kind == domain.Gauge && i < len(values) {
			out[k] = values[i]
		}
	}
	return out
}

// chartColumns folds h's buckets into columns of colMs (a counter's sum, a duration's
// largest, a gauge's newest sample), and counts the buckets recorded.
func chartColumns(h domain.History, kind domain.SeriesKind, idx []int, colMs int64) ([]chartColumnOf, int) {
	var columns []chartColumnOf
	recorded := 0
	for _, b := range h.Buckets {
		at := b.AtMs - ((b.AtMs%colMs)+colMs)%colMs
		if len(columns) == 0 || columns[len(columns)-1].at != at {
			columns = append(columns, chartColumnOf{at: at, values: make([]int64, len(idx))})
		}
		col := &columns[len(columns)-1]
		if !b.Recorded {
			continue
		}
		recorded++
		if kind == domain.Duration && !anyAbove0(b.Values, idx) {
			continue // no job was acked in it: a gap, not a duration of 0 ms
		}
		col.ok = true
		for k, i := range idx {
			switch kind {
			case domain.Counter:
				col.values[k] += b.Values[i]
			case domain.Duration:
				col.values[k] = max(col.values[k], b.Values[i])
			default:
				col.values[k] = b.Values[i] // the newest sample of the column
			}
		}
	}
	return columns, recorded
}

// anyAbove0 says whether any of series idx has a value above 0 in values.
func anyAbove0(values []int64, idx []int) bool {
	for _, i := range idx {
		if i < len(values) && values[i] > 0 {
			return true
		}
	}
	return false
}

// chartGeom places a chart's values: columns of colMs from origin over rangeMs, plotW wide,
// values up to top.
type chartGeom struct {
	origin, colMs, rangeMs int64
	plotW, colW            float64
	top                    int64
}

func (g chartGeom) x(ms int64) float64      { return float64(ms-g.origin) * g.plotW / float64(g.rangeMs) }
func (g chartGeom) center(at int64) float64 { return g.x(at) + g.colW/2 }
func (g chartGeom) y(v int64) float64       { return plotB - float64(plotB-plotT)*float64(v)/float64(g.top) }
func (g chartGeom) point(xv float64, v int64) string {
	return fnum(xv) + "," + fnum(g.y(v))
}

// chartLine is series k's polylines (broken where a column was not recorded, with the
// carried-in run before and the extension after) and its total.
func chartLine(g chartGeom, info domain.SeriesInfo, k int, kind domain.SeriesKind, columns []chartColumnOf, carry, ext []int64, label func(int64) string) chartSeries {
	s := chartSeries{Name: info.Name, Label: info.Label, Stroke: seriesColours[info.Name][0], Swatch: seriesColours[info.Name][1], Dash: dashes[k%len(dashes)]}
	var pts []string
	flush := func() {
		if len(pts) == 1 { // a lone point still shows: a short flat segment
			p := strings.Split(pts[0], ",")
			xv, _ := strconv.ParseFloat(p[0], 64)
			pts = []string{fnum(xv-g.colW/3) + "," + p[1], fnum(xv+g.colW/3) + "," + p[1]}
		}
		if len(pts) > 0 {
			s.Lines = append(s.Lines, strings.Join(pts, " "))
		}
		pts = nil
	}
	switch {
	case len(columns) == 0 && carry != nil: // the whole window is the carried-in run
		pts = []string{g.point(0, carry[k]), g.point(g.plotW, carry[k])}
	case carry != nil:
		pts = []string{g.point(g.x(g.origin-2*g.rangeMs), carry[k]), g.point(g.center(g.origin-g.colMs), carry[k])}
	}
	for _, col := range columns {
		if !col.ok {
			flush()
			continue
		}
		pts = append(pts, g.point(g.center(col.at), col.values[k]))
		switch kind {
		case domain.Counter:
			s.Sum += col.values[k]
		case domain.Duration:
			s.Sum = max(s.Sum, col.values[k])
		}
	}
	if n := len(columns); n > 0 && kind != domain.Duration { // a duration not measured is a gap
		next := columns[n-1].at + g.colMs
		pts = append(pts, g.point(g.center(next), ext[k]), g.point(g.x(next+2*g.rangeMs), ext[k]))
	}
	flush()
	if kind == domain.Gauge && ext != nil {
		s.Sum = ext[k]
	}
	s.SumText = label(s.Sum)
	return s
}

// chartHovers are the columns' hover areas, each titled with its time and values: the
// carried-in run, each column, the extension after the last.
func chartHovers(g chartGeom, h domain.History, idx []int, columns []chartColumnOf, carry, ext []int64, label func(int64) string) []chartColumn {
	stepName := "per " + formatMs(g.colMs)
	says := func(values []int64) string {
		parts := make([]string, len(idx))
		for k, i := range idx {
			parts[k] = h.Series[i].Label + " " + label(values[k])
		}
		return strings.Join(parts, ", ")
	}
	var out []chartColumn
	if carry != nil && len(columns) == 0 {
		out = append(out, chartColumn{X: "0", W: fnum(g.plotW), Title: "the whole range: " + says(carry) + " " + stepName})
	} else if carry != nil {
		out = append(out, chartColumn{X: fnum(g.x(g.origin - 2*g.rangeMs)), W: fnum(g.x(g.origin) - g.x(g.origin-2*g.rangeMs)),
			Title: "before " + clockLabel(h.Buckets[0].AtMs) + " UTC: " + says(carry) + " " + stepName})
	}
	for _, col := range columns {
		title := clockLabel(col.at) + "–" + clockLabel(col.at+g.colMs) + " UTC"
		if !col.ok {
			title += ": not recorded"
		} else {
			title += ": " + says(col.values)
		}
		out = append(out, chartColumn{X: fnum(g.x(col.at)), W: fnum(g.colW), Title: title})
	}
	if n := len(columns); n > 0 {
		next := columns[n-1].at + g.colMs
		out = append(out, chartColumn{X: fnum(g.x(next)), W: fnum(g.x(next+2*g.rangeMs) - g.x(next)),
			Title: "from " + clockLabel(next) + " UTC: " + says(ext) + " " + stepName})
	}
	return out
}

// chartAxes sets c's window (view box) and its time and value ticks.
func chartAxes(c *historyChart, g chartGeom, h domain.History, label func(int64) string) {
	// The window: the range before the page's read, or (a live snapshot, which has no time
	// of its own) before the last bucket's end; app.js moves it to the browser's now.
	end := h.EndMs
	if end == 0 && len(h.Buckets) > 0 {
		end = h.Buckets[len(h.Buckets)-1].AtMs + h.StepMs
	}
	c.RangeMs, c.StepMs, c.ColMs = strconv.FormatInt(g.rangeMs, 10), strconv.FormatInt(h.StepMs, 10), strconv.FormatInt(g.colMs, 10)
	c.ViewBox = "0 0 " + fnum(g.plotW) + " " + strconv.Itoa(chartH)
	if c.Origin != "" && end != 0 {
		c.ViewBox = fnum(g.x(end-g.rangeMs)) + " 0 " + fnum(g.plotW) + " " + strconv.Itoa(chartH)
	}
	// Time labels every quarter of the window (app.js writes them for its now).
	for q := 0; q <= 4; q++ {
		tick := chartTick{X: fnum(plotL + g.plotW*float64(q)/4), Y: strconv.Itoa(plotB + 16), Anchor: "middle", Minor: q%2 == 1, Q: strconv.Itoa(q)}
		if end != 0 {
			tick.Label = clockLabel(end - g.rangeMs + int64(q)*g.rangeMs/4)
		}
		switch q {
		case 0:
			tick.Anchor = "start"
		case 4:
			tick.Anchor = "end"
			if tick.Label != "" {
				tick.Label += " UTC"
			}
		}
		c.XTicks = append(c.XTicks, tick)
	}
	for _, v := range []int64{0, g.top / 2, g.top} {
		c.YTicks = append(c.YTicks, chartTick{X: strconv.Itoa(plotL - 6), Y: fnum(g.y(v) + 3), Label: label(v), Anchor: "end"})
	}
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
