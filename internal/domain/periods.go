package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Period names a leaderboard kept beside the all-time board for the current day, ISO week or
// month, in UTC.
type Period string

const (
	AllTime Period = ""
	Daily   Period = "daily"
	Weekly  Period = "weekly"
	Monthly Period = "monthly"
)

// Periods are the periods a board may keep, in display order.
var Periods = []Period{Daily, Weekly, Monthly}

// ParsePeriod reads a period name; "" and "all" are the all-time board. Returns EINVALID.
func ParsePeriod(s string) (Period, error) {
	switch p := Period(s); {
	case s == "" || s == "all":
		return AllTime, nil
	case slices.Contains(Periods, p):
		return p, nil
	default:
		return "", Errorf(EINVALID, "period must be daily, weekly or monthly (got %q)", clip(s))
	}
}

// ParseOnePeriod reads a period that must name one: daily, weekly or monthly. Neither "" nor
// "all" is one (all time is asked for by leaving the parameter out), so a caller that builds
// ?period=$P from an empty $P is refused rather than read as all time. The error names the
// period field.
func ParseOnePeriod(s string) (Period, error) {
	if p := Period(s); slices.Contains(Periods, p) {
		return p, nil
	}
	return "", FieldErrorf("period", EINVALID, "period must be daily, weekly or monthly (got %q)", clip(s))
}

// Suffix names the period that contains t, as the key suffix the articles use:
// 2026-11-29 (daily), 2026-W48 (weekly, ISO 8601), 2026-11 (monthly). All in UTC.
func (p Period) Suffix(t time.Time) string {
	t = t.UTC()
	switch p {
	case Daily:
		return t.Format("2006-01-02")
	case Weekly:
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case Monthly:
		return t.Format("2006-01")
	default:
		return ""
	}
}

// End returns the first instant after the period that contains t.
func (p Period) End(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch p {
	case Daily:
		return day.AddDate(0, 0, 1)
	case Weekly:
		// ISO weeks start on Monday.
		return day.AddDate(0, 0, 7-(int(t.Weekday())+6)%7)
	case Monthly:
		return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	default:
		return time.Time{}
	}
}

// Label is the period's name for people.
func (p Period) Label() string {
	switch p {
	case Daily:
		return "Today"
	case Weekly:
		return "This week"
	case Monthly:
		return "This month"
	default:
		return "All time"
	}
}

var periodSuffix = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|\d{4}-W\d{2}|\d{4}-\d{2})$`)

// IsPeriodSuffix says whether s looks like a period's key suffix: a day (2026-11-30), an ISO
// week (2026-W48) or a month (2026-11).
func IsPeriodSuffix(s string) bool { return periodSuffix.MatchString(s) }

// ValidateNewBoardName checks the name of a board zpulse is asked to create (write points
// or settings to): a name (see ValidateName) whose last ":"-separated part does not look
// like a period. The articles keep board x's period boards at leaderboard:x:<period>, so a
// board named x:2026-11-30 would be board x's daily board as well. Returns EINVALID.
func ValidateNewBoardName(name string) error {
	if err := ValidateName("board", name); err != nil {
		return err
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 && IsPeriodSuffix(name[i+1:]) {
		return Errorf(EINVALID, "board name %q ends in %q, which names a period: its key leaderboard:%s is also board %q's %s board (leaderboard:<board>:<day|week|month>); choose a name that does not end in :<yyyy-mm-dd>, :<yyyy-Www> or :<yyyy-mm>",
			name, name[i:], name, name[:i], periodKind(name[i+1:]))
	}
	return nil
}

func periodKind(suffix string) string {
	switch {
	case strings.Contains(suffix, "W"):
		return "weekly"
	case len(suffix) == len("2006-01-02"):
		return "daily"
	default:
		return "monthly"
	}
}
