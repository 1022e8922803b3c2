package domain

import (
	"context"
	"strings"
	"time"
)

// History is what zpulse records of queues, limiters and boards so that charts outlive an
// instance: one instance (the "history-recorder" singleton) samples Redis every HistoryStep
// and writes a bucket per entity; every instance reads the same buckets.

// HistoryStep is the finest bucket: the last hour is kept per 10 seconds.
const HistoryStep = 10 * time.Second

// HistoryRange is the span a chart shows.
type HistoryRange string

const (
	HistoryHour HistoryRange = "1h"  // 360 buckets of 10 s
	HistoryDay  HistoryRange = "24h" // 1,440 buckets of 1 min
)

// HistoryRanges are the ranges a chart offers, shortest first.
var HistoryRanges = []HistoryRange{HistoryHour, HistoryDay}

// ParseHistoryRange reads "1h" or "24h"; "" is HistoryHour. Returns EINVALID.
func ParseHistoryRange(s string) (HistoryRange, error) {
	switch HistoryRange(s) {
	case "", HistoryHour:
		return HistoryHour, nil
	case HistoryDay:
		return HistoryDay, nil
	}
	return "", Errorf(EINVALID, `range must be "1h" or "24h" (got %q)`, clip(s))
}

// Step is the width of one bucket of the range.
func (r HistoryRange) Step() time.Duration {
	if r == HistoryDay {
		return time.Minute
	}
	return HistoryStep
}

// Buckets is how many buckets the range keeps.
func (r HistoryRange) Buckets() int {
	if r == HistoryDay {
		return 24 * 60
	}
	return 60 * 60 / int(HistoryStep/time.Second)
}

// HistoryKind is what a history is about.
type HistoryKind string

const (
	HistoryQueue   HistoryKind = "queue"
	HistoryLimiter HistoryKind = "limiter"
	HistoryBoard   HistoryKind = "board"
)

// A series is a gauge (sampled at the end of the bucket: a bucket that merges others keeps
// the last) or a counter (what happened during the bucket: merged buckets add up).
type SeriesKind int

const (
	Gauge SeriesKind = iota
	Counter
	// Duration is a time in ms over the bucket (a quantile or the max of the lease-to-ack
	// times): merged buckets keep the largest.
	Duration
)

// SeriesInfo names one series of a history.
type SeriesInfo struct {
	Name  string // the API's and the metrics' word: "waiting", "enqueued", ...
	Label string // for people
	Kind  SeriesKind
}

// HistorySeries are the series of each kind, in the order their values are stored.
var HistorySeries = map[HistoryKind][]SeriesInfo{
	HistoryQueue: {
		{"waiting", "Waiting", Gauge}, {"scheduled", "Scheduled", Gauge}, {"in_flight", "In flight", Gauge}, {"dead", "Dead", Gauge},
		{"enqueued", "Enqueued", Counter}, {"completed", "Completed", Counter}, {"failed", "Failed", Counter},
		{"p50_ms", "p50", Duration}, {"p95_ms", "p95", Duration}, {"max_ms", "max", Duration},
	},
	HistoryLimiter: {{"allowed", "Allowed", Counter}, {"rejected", "Rejected", Counter}},
	// A board's players all time, then (after adds) on the daily, weekly and monthly boards
	// of the bucket (0 when the board keeps no such period): the chart shows its period's.
	HistoryBoard: {{"players", "Players", Gauge}, {"adds", "Point adds", Counter},
		{"players_daily", "Players today", Gauge}, {"players_weekly", "Players this week", Gauge}, {"players_monthly", "Players this month", Gauge}},
}

// boardPlayerSeries is the index in HistorySeries[HistoryBoard] of each period's players.
var boardPlayerSeries = map[Period]int{AllTime: 0, Daily: 2, Weekly: 3, Monthly: 4}

// ForPeriod is a board's history as its page on period charts it: the players of that
// period's board (as "Players") and the point adds; other kinds unchanged.
func (h History) ForPeriod(p Period) History {
	keep, ok := boardPlayerSeries[p]
	if h.Kind != HistoryBoard || !ok || len(h.Series) != len(HistorySeries[HistoryBoard]) {
		return h
	}
	idx := []int{keep, 1}
	out := h
	out.Series = []SeriesInfo{{"players", "Players", Gauge}, h.Series[1]}
	pick := func(values []int64) []int64 {
		if values == nil {
			return nil
		}
		v := make([]int64, len(idx))
		for k, i := range idx {
			if i < len(values) {
				v[k] = values[i]
			}
		}
		return v
	}
	out.Buckets = make([]HistoryBucket, len(h.Buckets))
	for i, b := range h.Buckets {
		b.Values = pick(b.Values)
		out.Buckets[i] = b
	}
	out.Carry = pick(h.Carry)
	return out
}

// HistoryBucket is one bucket of a history: Values in HistorySeries order, or Recorded false
// when no recorder wrote it (zpulse was not running, or the entity did not exist).
type HistoryBucket struct {
	AtMs     int64   `json:"at_ms"` // the bucket's start, epoch ms
	Recorded bool    `json:"recorded"`
	Values   []int64 `json:"values,omitempty"`
}

// History is a chart's data: Buckets oldest first, the last one the newest recorded (or the
// newest that should have been, when nothing was).
type History struct {
	Kind    HistoryKind     `json:"kind"`
	Name    string          `json:"name"`
	Range   HistoryRange    `json:"range"`
	StepMs  int64           `json:"step_ms"`
	Series  []SeriesInfo    `json:"-"`
	Buckets []HistoryBucket `json:"buckets"`
	// Set by Settle (charts only, never in the API's answer): see history_settled.go.
	Settled bool    `json:"-"`
	Carry   []int64 `json:"-"` // the values of a quiet run that began before the first bucket
	EndMs   int64   `json:"-"` // the window's end as read (pages); 0 in a live snapshot
}

// HistoryService records and reads histories.
type HistoryService interface {
	// Record samples every queue, limiter and board and writes the bucket that ended last.
	// Run it in one instance at a time (a Singleton); a second writer writes the same values.
	Record(ctx context.Context) error
	// Ring reads an entity's history over a range. Returns EINVALID for a bad name.
	Ring(ctx context.Context, kind HistoryKind, name string, r HistoryRange) (History, error)
}

// historyTopicPrefix + kind + "." + range + ":" + name: a chart's topic, e.g.
// "history.queue.1h:email-jobs".
const historyTopicPrefix = "history."

// HistoryTopic is the live topic of an entity's chart over a range.
func HistoryTopic(kind HistoryKind, name string, r HistoryRange) string {
	return historyTopicPrefix + string(kind) + "." + string(r) + ":" + name
}

// ParseHistoryTopic reads a HistoryTopic.
func ParseHistoryTopic(topic string) (kind HistoryKind, name string, r HistoryRange, ok bool) {
	rest, found := strings.CutPrefix(topic, historyTopicPrefix)
	head, name, cut := strings.Cut(rest, ":")
	k, rs, dot := strings.Cut(head, ".")
	if !found || !cut || !dot {
		return "", "", "", false
	}
	kind = HistoryKind(k)
	r, err := ParseHistoryRange(rs)
	if err != nil || rs == "" || ValidateHistoryName(kind, name) != nil {
		return "", "", "", false
	}
	return kind, name, r, true
}

// ValidateHistoryName checks an entity name of a kind. Returns EINVALID.
func ValidateHistoryName(kind HistoryKind, name string) error {
	switch kind {
	case HistoryQueue:
		return ValidateName("queue", name)
	case HistoryBoard:
		return ValidateName("board", name)
	case HistoryLimiter:
		return ValidateLimiterName(name)
	}
	return Errorf(EINVALID, "unknown history kind %q", clip(string(kind)))
}
