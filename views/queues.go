package views

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// QueuePageData is what a queue's page shows.
type QueuePageData struct {
	View     domain.QueueView
	Settings domain.QueueSettings
	Forms    map[string]Form // by form id: "enqueue", "queue-settings"
	History  *domain.History // nil: not shown
}

func (d QueuePageData) form(id string) Form {
	if f, ok := d.Forms[id]; ok {
		return f
	}
	return NewForm()
}

// QueuePanelID is the id of a queue's live panel.
func QueuePanelID(queue string) string { return domID("queue", queue) }

// queuePartID is the id of a part of a queue's live panel (live/parts.go): a stat, a lane, a
// card, a job's row.
func queuePartID(queue, part string) string { return QueuePanelID(queue) + "-" + part }

// QueueFormSection is the id of the section that holds a queue form.
func QueueFormSection(id string) string { return "queue-" + id }

func queueURL(queue string) string { return "/queues/" + url.PathEscape(queue) }

func jobURL(queue, id, action string) string {
	return queueURL(queue) + "/jobs/" + url.PathEscape(id) + "/" + action
}

// laneWidth is a priority bar's width in percent of the longest lane (at least a sliver for
// a lane that has jobs).
func laneWidth(v domain.QueueView, n int64) string {
	var top int64
	for _, c := range v.ByPriority {
		top = max(top, c)
	}
	if n == 0 || top == 0 {
		return "0"
	}
	return percent(max(float64(n)*100/float64(top), 1.5))
}

// dueWidth is the due part of a delayed queue's bar, in percent. (Bars are SVG: the page's
// security policy refuses inline styles.)
func dueWidth(v domain.QueueView) string {
	if v.Waiting == 0 {
		return "0"
	}
	return percent(float64(v.Due) * 100 / float64(v.Waiting))
}

// A sparkline's points sit at their absolute seconds: x is the second minus the origin, the
// first second with a count (sparkOrigin), so they stay put while the counts do; app.js moves
// the svg's viewBox to the last len(series) seconds of the browser's clock. Only the seconds
// with a count and their neighbours are points (the line is flat at 0 between them, over a
// baseline drawn apart), so nothing in the markup depends on when it was read.

// sparkOrigin is the Unix second of the first count of series (whose first second is
// fromSec), or 0 when it has none.
func sparkOrigin(series []int64, fromSec int64) int64 {
	for i, n := range series {
		if n != 0 {
			return fromSec + int64(i)
		}
	}
	return 0
}

// sparkPoints draws the series' counts as an SVG polyline's points in a box h high: each
// count, with a point at 0 on either side of a run of counts. Seconds outside the series
// count as 0, so the points do not depend on where the run sits in the window.
func sparkPoints(series []int64, h float64) string {
	var top int64 = 1
	first := -1
	for i, n := range series {
		top = max(top, n)
		if n != 0 && first < 0 {
			first = i
		}
	}
	count := func(i int) int64 {
		if i < 0 || i >= len(series) {
			return 0
		}
		return series[i]
	}
	var b strings.Builder
	point := func(i int, n int64) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(i-first) + "," + strconv.FormatFloat(h-1-(h-2)*float64(n)/float64(top), 'f', 1, 64))
	}
	for i, n := range series {
		if n == 0 {
			continue
		}
		if count(i-1) == 0 {
			point(i-1, 0)
		}
		point(i, n)
		if count(i+1) == 0 {
			point(i+1, 0)
		}
	}
	return b.String()
}

// sparkCounts lists the series' counts as "second:count" pairs, seconds from sparkOrigin, for
// app.js's rate of the last 10 s.
func sparkCounts(series []int64, fromSec int64) string {
	origin := sparkOrigin(series, fromSec)
	var parts []string
	for i, n := range series {
		if n != 0 {
			parts = append(parts, strconv.FormatInt(fromSec+int64(i)-origin, 10)+":"+strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(parts, " ")
}

func seriesTotal(series []int64) int64 {
	var sum int64
	for _, n := range series {
		sum += n
	}
	return sum
}

func utcTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000Z") }

// isoTime is ms as a <time> element's datetime (RFC 3339, UTC).
func isoTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }

// clockTime is the UTC time of day of ms, what a moment shows until app.js makes it relative.
func clockTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05Z") }

func kindLabel(k domain.QueueKind) string {
	if k == domain.DelayedQueue {
		return "Delayed queue"
	}
	return "Priority queue"
}

func priorityLabel(j domain.QueueJob) string {
	if j.Priority < 0 {
		return "–"
	}
	return strconv.Itoa(j.Priority)
}

func scoreText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// priorities are a priority queue's lanes, first to last.
var priorities = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}

// percent is a width in percent, to a tenth, for an SVG attribute.
func percent(p float64) string { return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) }

// queueStat names one of the figures at the top of a queue's page.
type queueStat struct{ id, label string }

// queueStats are the figures at the top of a queue's page, in order.
func queueStats(v domain.QueueView) []queueStat {
	second := queueStat{"oldest", "Oldest waiting"}
	if v.Settings.Kind == domain.DelayedQueue {
		second = queueStat{"due", "Due now"}
	}
	return []queueStat{{"waiting", "Waiting"}, second, {"processing", "In flight"}, {"dead", "Dead"}}
}
