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

// sparkline draws per-second counts as an SVG polyline's points in a w×h box.
func sparkline(series []int64, w, h float64) string {
	var top int64 = 1
	for _, n := range series {
		top = max(top, n)
	}
	var b strings.Builder
	for i, n := range series {
		x := w * float64(i) / float64(max(len(series)-1, 1))
		y := h - 1 - (h-2)*float64(n)/float64(top)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 1, 64) + "," + strconv.FormatFloat(y, 'f', 1, 64))
	}
	return b.String()
}

// ratePerSec is the mean of the last 10 seconds of a series, as "12.3/s".
func ratePerSec(series []int64) string {
	const last = 10
	var sum int64
	for _, n := range series[max(len(series)-last, 0):] {
		sum += n
	}
	return strconv.FormatFloat(float64(sum)/last, 'f', 1, 64) + "/s"
}

func seriesTotal(series []int64) int64 {
	var sum int64
	for _, n := range series {
		sum += n
	}
	return sum
}

func utcTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000Z") }

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
