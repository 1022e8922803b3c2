package httpio

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The one binder. Every number, duration and true/false a form, a query or a JSON body gives
// is read through one of the inputs declared here, with its bounds: the same value is refused
// with the same message wherever it comes from, and the error (an EINVALID) names its field
// (domain.Error.Field), by which a form puts it beside the field.

// maxTrimKeep is the most players a trim can be asked to keep.
const maxTrimKeep = 1_000_000_000

// maxTry is the most requests the limiter page's "try" form fires at once.
const maxTry = 100

// Whole numbers.
var (
	PointsInput      = Whole{field: "points", min: -domain.MaxSafeScore, max: domain.MaxSafeScore}
	ScoreInput       = Whole{field: "score", min: -domain.MaxSafeScore, max: domain.MaxSafeScore}
	KeepInput        = Whole{field: "keep", unit: "players", min: 1, max: maxTrimKeep}
	RetentionInput   = Whole{field: "retention_days", unit: "days", min: domain.MinRetentionDays, max: domain.MaxRetentionDays}
	RankInput        = Whole{field: "rank", min: 1, max: domain.MaxRank}
	TopNInput        = Whole{field: "n", min: 1, max: domain.MaxTopN}
	AroundNInput     = Whole{field: "n", min: 1, max: domain.MaxAround}
	EntriesInput     = Whole{field: "limit", min: 1, max: domain.MaxPageLimit}
	JobPageInput     = Whole{field: "limit", min: 1, max: domain.MaxJobPage}
	HistoryPageInput = Whole{field: "limit", unit: "events", min: 1, max: domain.MaxHistoryPage}
	PriorityInput    = Whole{field: "priority", min: domain.MinPriority, max: domain.MaxPriority, ends: [2]string{"first", "last"}}
	MaxAttemptsInput = Whole{field: "max_attempts", min: 1, max: domain.MaxMaxAttempts}
	BatchCountInput  = Whole{field: "count", min: 1, max: domain.MaxBatchPoll}
	LimitInput       = Whole{field: "limit", unit: "requests per window", min: 1, max: domain.MaxLimit}
	BurstInput       = Whole{field: "burst", unit: "tokens the bucket holds", min: 1, max: domain.MaxBurst}
	TryInput         = Whole{field: "n", unit: "requests", min: 1, max: maxTry}
	SeasonInput      = Whole{field: "season", min: 1, max: domain.MaxSeason}
	KeepSeasonsInput = Whole{field: "keep_seasons", unit: "seasons (0 keeps every one)", min: 0, max: domain.MaxKeepSeasons}
)

// Durations: whole milliseconds in JSON (the field's name with _ms), Go's notation in forms
// ("30s", "1m30s"), seconds in the lock forms.
var (
	WindowInput       = Span{"window", domain.MinWindowMs * time.Millisecond, domain.MaxWindowMs * time.Millisecond}
	SharedWindowInput = Span{"shared_window", 0, domain.MaxWindowMs * time.Millisecond}
	DelayInput        = Span{"delay", 0, domain.MaxDelay}
	LeaseInput        = Span{"lease", domain.MinLease, domain.MaxLease}
	TakeWaitInput     = Span{"wait", 0, domain.MaxTakeWait}
	LockTTLInput      = Span{"ttl", domain.MinLockTTL, domain.MaxLockTTL}
	LockWaitInput     = Span{"wait", 0, domain.MaxLockWait}
	// A schedule's interval (Text: "30s", "1h") and its job's delay (Millis: job.delay_ms).
	EveryInput         = Span{"every", domain.MinScheduleEvery, domain.MaxScheduleEvery}
	ScheduleDelayInput = Span{"job.delay", 0, domain.MaxDelay}
)

// Other numbers and switches.
var (
	RateInput     = Decimal{"rate_per_s", "tokens a second", domain.MinRatePerS, domain.MaxRatePerS}
	PausedInput   = Flag{"paused"}
	WatchdogInput = Flag{"watchdog"}
)

// Times: RFC 3339, as JSON writes them and the forms show them.
var RunAtInput = Moment{"run_at"}

// integerLiteral is a whole number as JSON writes it: no sign +, leading zero, fraction or
// exponent. Forms and queries are held to the same, so "+5" is refused everywhere.
var integerLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// decimalLiteral is a number as JSON writes it.
var decimalLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// Whole is a whole-number input: its field, what it counts ("" for a plain number), its
// bounds, and what the bounds mean when the numbers alone do not say (priority 0 is first).
type Whole struct {
	field    string
	unit     string
	min, max int64
	ends     [2]string
}

// bounds says the range: "from 1 to 1,000", "from 0 (first) to 9 (last)".
func (w Whole) bounds() string {
	lo, hi := domain.FormatCount(w.min), domain.FormatCount(w.max)
	if w.ends[0] != "" {
		lo, hi = lo+" ("+w.ends[0]+")", hi+" ("+w.ends[1]+")"
	}
	return "from " + lo + " to " + hi
}

// Parse reads the input as typed in a form or a query, or as its JSON literal: an integer
// literal from min to max. Anything else (fractions, exponents, a sign +, text, a number out
// of range) is refused, never rounded or clamped; "" is a missing input.
func (w Whole) Parse(lit string) (int64, error) {
	what := "a whole number"
	if w.unit != "" {
		what += " of " + w.unit
	}
	if lit == "" {
		return 0, domain.FieldErrorf(w.field, domain.EINVALID, "%s is required: %s %s", w.field, what, w.bounds())
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil || !integerLiteral.MatchString(lit) || n < w.min || n > w.max {
		return 0, domain.FieldErrorf(w.field, domain.EINVALID, "%s must be %s %s, written as digits with an optional leading - (got %s)",
			w.field, what, w.bounds(), clipped(lit))
	}
	return n, nil
}

// JSON reads the input from its field's raw JSON value (absent: missing).
func (w Whole) JSON(raw json.RawMessage) (int64, error) {
	return w.Parse(strings.TrimSpace(string(raw)))
}

// Query reads the input from the query parameter of its name; def when it is not given.
func (w Whole) Query(c echo.Context, def int) (int, error) {
	s := c.QueryParam(w.field)
	if s == "" {
		return def, nil
	}
	n, err := w.Parse(s)
	return int(n), err
}

// Span is a duration input: its field, its bounds (whole milliseconds).
type Span struct {
	field    string
	min, max time.Duration
}

// Millis reads the input from the raw JSON value of its field_ms: whole milliseconds.
func (d Span) Millis(raw json.RawMessage) (time.Duration, error) {
	ms, err := Whole{field: d.field + "_ms", unit: "milliseconds", min: d.min.Milliseconds(), max: d.max.Milliseconds()}.JSON(raw)
	return time.Duration(ms) * time.Millisecond, err
}

// Text reads the input as people type it in forms: Go's notation ("30s", "1m30s", "500ms").
func (d Span) Text(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil || strings.HasPrefix(s, "+") || v%time.Millisecond != 0 || v < d.min || v > d.max {
		return 0, domain.FieldErrorf(d.field, domain.EINVALID, "%s must be a duration such as 10s, 1m30s or 500ms (whole milliseconds) from %s to %s (got %s)",
			d.field, domain.FormatDuration(d.min), domain.FormatDuration(d.max), clipped(s))
	}
	return v, nil
}

// secondsLiteral is a number of seconds as the lock forms take it: down to milliseconds.
var secondsLiteral = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,3})?$`)

// Seconds reads the input as a number of seconds ("30", "0.5").
func (d Span) Seconds(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s + "s")
	if !secondsLiteral.MatchString(s) || err != nil || v < d.min || v > d.max {
		return 0, domain.FieldErrorf(d.field, domain.EINVALID, "%s must be a number of seconds from %s to %s, with at most 3 decimals (got %s)",
			d.field, strconv.FormatFloat(d.min.Seconds(), 'f', -1, 64), strconv.FormatFloat(d.max.Seconds(), 'f', -1, 64), clipped(s))
	}
	return v, nil
}

// Decimal is a number input that may have a fraction: its field, what it counts, its bounds.
type Decimal struct {
	field    string
	unit     string
	min, max float64
}

// Parse reads the input as typed in a form or as its JSON literal: a JSON number from min to
// max.
func (n Decimal) Parse(lit string) (float64, error) {
	if lit == "" {
		return 0, domain.FieldErrorf(n.field, domain.EINVALID, "%s is required: a number of %s from %g to %s",
			n.field, n.unit, n.min, strconv.FormatFloat(n.max, 'f', -1, 64))
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil || !decimalLiteral.MatchString(lit) || v < n.min || v > n.max {
		return 0, domain.FieldErrorf(n.field, domain.EINVALID, "%s must be a number of %s from %g to %s, such as 10 or 0.5 (got %s)",
			n.field, n.unit, n.min, strconv.FormatFloat(n.max, 'f', -1, 64), clipped(lit))
	}
	return v, nil
}

// JSON reads the input from its field's raw JSON value.
func (n Decimal) JSON(raw json.RawMessage) (float64, error) {
	return n.Parse(strings.TrimSpace(string(raw)))
}

// Flag is a true/false input.
type Flag struct{ field string }

// Parse reads "true" or "false".
func (b Flag) Parse(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, domain.FieldErrorf(b.field, domain.EINVALID, "%s must be true or false (got %s)", b.field, clipped(s))
}

// JSON reads the input from its field's raw JSON value: true or false; left out or null is
// false.
func (b Flag) JSON(raw json.RawMessage) (bool, error) {
	lit := strings.TrimSpace(string(raw))
	if lit == "" || lit == "null" {
		return false, nil
	}
	return b.Parse(lit)
}

// Moment is a point in time input: an RFC 3339 time with its offset ("2026-11-29T12:30:00Z",
// "2026-11-29T13:30:00+01:00"), in a form or a JSON string alike. Which times a call takes
// (a delayed queue's, not a priority queue's) is the domain's to say.
type Moment struct{ field string }

// Parse reads the input as typed in a form or as its JSON string.
func (m Moment) Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, domain.FieldErrorf(m.field, domain.EINVALID, "%s must be an RFC 3339 time such as 2026-11-29T12:30:00Z (got %s)",
			m.field, clipped(s))
	}
	return t, nil
}

func clipped(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%.40s…", s)
	}
	return s
}
