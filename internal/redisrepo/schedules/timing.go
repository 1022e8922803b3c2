package schedules

import (
	"time"

	"github.com/robfig/cron/v3"

	"github.com/zpulse/zpulse/internal/domain"
)

// maxCronSteps bounds the periods walked to find the last one due after an outage: a
// per-minute cron over a year is about 525,600 steps.
const maxCronSteps = 1 << 20

// timing is when a schedule's periods start: every `every` from its creation, or at each
// match of its cron expression in its zone.
type timing struct {
	every   time.Duration
	anchor  time.Time // an every schedule's periods start at anchor + k × every, k ≥ 1
	cron    cron.Schedule
	loc     *time.Location
	cronSrc string
}

// parseCron reads a standard 5-field cron expression. Returns EINVALID naming "cron".
func parseCron(expr string) (cron.Schedule, error) {
	s, err := cron.ParseStandard(expr)
	if err != nil {
		return nil, domain.FieldErrorf("cron", domain.EINVALID, "cron must be 5 fields: minute hour day-of-month month day-of-week, e.g. 0 3 * * * (%v)", err)
	}
	return s, nil
}

// timingOf is a spec's timing, anchored at created. Returns EINVALID naming the field.
func timingOf(spec domain.ScheduleSpec, created time.Time) (timing, error) {
	loc, err := spec.Location()
	if err != nil {
		return timing{}, err
	}
	t := timing{every: spec.Every, anchor: created, loc: loc, cronSrc: spec.Cron}
	if spec.Cron != "" {
		if len(spec.Cron) > 0 && (spec.Cron[0] == '@' || containsTZ(spec.Cron)) {
			return timing{}, domain.FieldErrorf("cron", domain.EINVALID, "cron must be 5 fields: minute hour day-of-month month day-of-week, e.g. 0 3 * * * (give the zone in zone, not in the expression)")
		}
		if t.cron, err = parseCron(spec.Cron); err != nil {
			return timing{}, err
		}
		if t.cron.Next(created.In(loc)).IsZero() {
			return timing{}, domain.FieldErrorf("cron", domain.EINVALID, "cron %q never matches a date", spec.Cron)
		}
	}
	return t, nil
}

func containsTZ(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if s[i:i+3] == "TZ=" {
			return true
		}
	}
	return false
}

// next is the first period start strictly after t.
func (t timing) next(after time.Time) time.Time {
	if t.cron != nil {
		return t.cron.Next(after.In(t.loc)).UTC()
	}
	if after.Before(t.anchor) {
		return t.anchor.Add(t.every)
	}
	k := after.Sub(t.anchor)/t.every + 1
	return t.anchor.Add(k * t.every)
}

// due is the last period start at or before now, given the schedule's next period start
// (next ≤ now): the one period a run at now enqueues, however many were missed since next;
// and the first start after now, the next period.
func (t timing) due(next, now time.Time) (period, following time.Time) {
	period = next
	if t.cron != nil {
		for range maxCronSteps {
			n := t.next(period)
			if n.IsZero() || n.After(now) {
				break
			}
			period = n
		}
	} else if !now.Before(t.anchor) {
		period = t.anchor.Add(now.Sub(t.anchor) / t.every * t.every)
		if period.Before(next) {
			period = next
		}
	}
	return period, t.next(now)
}
