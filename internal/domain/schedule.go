package domain

import (
	"context"
	"encoding/json"
	"regexp"
	"time"
)

// Recurring schedules: a schedule enqueues one job on its queue per period, a fixed interval
// (Every) or a cron expression (Cron) read in a zone. The job's id is the schedule's name and
// the period's start (ScheduledJobID), so enqueueing a period twice is refused by the queue
// itself; the schedule's state and that enqueue change in one script on the queue's slot.

// Schedule limits.
const (
	// MaxScheduleName is the longest schedule name: its jobs' ids are the name, "@" and the
	// period's UTC time to the millisecond, and a job id is at most MaxMemberBytes.
	MaxScheduleName = 40
	// MinScheduleEvery is the shortest interval between two runs of an Every schedule.
	MinScheduleEvery = time.Second
	// MaxScheduleEvery is the longest: a year, as a delayed job's delay.
	MaxScheduleEvery = MaxDelay
	// MaxJobType is the longest job type, in characters.
	MaxJobType = 64
)

var scheduleNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,40}$`)

// ValidateScheduleName checks a schedule's name: 1 to MaxScheduleName characters from A-Z,
// a-z, 0-9 and ". _ -" (no ":", so a job id reads back as its schedule and period).
// Returns EINVALID naming the field "name".
func ValidateScheduleName(name string) error {
	if !scheduleNamePattern.MatchString(name) {
		return FieldErrorf("name", EINVALID, "name must be 1 to %d characters from A-Z, a-z, 0-9 and . _ - (got %q)", MaxScheduleName, clip(name))
	}
	return nil
}

// ScheduledJob is the job a schedule enqueues each period: Priority (HasPriority) on a
// priority queue, Delay (from the moment it is enqueued, or none) on a delayed queue.
type ScheduledJob struct {
	Type        string // what kind of work, 1 to MaxJobType characters, or ""
	Priority    int
	HasPriority bool
	Delay       time.Duration
	Payload     json.RawMessage
}

// ScheduleSpec is a schedule as it is created: exactly one of Every and Cron.
type ScheduleSpec struct {
	Name  string
	Queue string
	Every time.Duration // 0 for a cron schedule
	Cron  string        // standard 5 fields (minute hour day-of-month month day-of-week), or ""
	Zone  string        // IANA zone the cron fields are read in; "" is UTC
	Job   ScheduledJob
}

// Location is the spec's zone (UTC for ""). Returns EINVALID naming "zone".
func (s ScheduleSpec) Location() (*time.Location, error) {
	if s.Zone == "" || s.Zone == "UTC" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(s.Zone)
	if err != nil || s.Zone == "Local" {
		return nil, FieldErrorf("zone", EINVALID, "zone must be an IANA time zone such as Europe/Paris or UTC (got %q)", clip(s.Zone))
	}
	return loc, nil
}

// Validate checks everything of a spec but the cron expression's fields (the Redis adapter
// reads those with its cron parser) and the queue's kind (the queue's settings say it).
// Returns EINVALID naming the field: name, queue, every, cron, zone, job.type,
// job.priority, job.delay_ms, job.payload.
func (s ScheduleSpec) Validate() error {
	if err := ValidateScheduleName(s.Name); err != nil {
		return err
	}
	if err := ValidateName("queue", s.Queue); err != nil {
		return withField(err, "queue")
	}
	switch {
	case s.Every != 0 && s.Cron != "":
		return FieldErrorf("every", EINVALID, "give every or cron, not both")
	case s.Every == 0 && s.Cron == "":
		return FieldErrorf("every", EINVALID, "give every (an interval such as 10m) or cron (5 fields such as 0 3 * * *)")
	case s.Cron == "" && (s.Every < MinScheduleEvery || s.Every > MaxScheduleEvery || s.Every%time.Millisecond != 0):
		return FieldErrorf("every", EINVALID, "every must be from 1s to a year, in whole milliseconds, e.g. 30s or 1h (got %v)", s.Every)
	}
	if _, err := s.Location(); err != nil {
		return err
	}
	j := s.Job
	if j.Type != "" && len([]rune(j.Type)) > MaxJobType {
		return FieldErrorf("job.type", EINVALID, "job type must be 1 to %d characters (got %d)", MaxJobType, len([]rune(j.Type)))
	}
	if j.Type != "" {
		if err := ValidateMember("job type", j.Type); err != nil {
			return withField(err, "job.type")
		}
	}
	if j.HasPriority {
		if err := ValidatePriority(j.Priority); err != nil {
			return withField(err, "job.priority")
		}
		if j.Delay != 0 {
			return FieldErrorf("job.delay_ms", EINVALID, "give a priority (priority queue) or a delay (delayed queue), not both")
		}
	}
	if j.Delay < 0 || j.Delay > MaxDelay || j.Delay%time.Millisecond != 0 {
		return FieldErrorf("job.delay_ms", EINVALID, "delay_ms must be a whole number of milliseconds from 0 to %s (a year) (got %v)", FormatCount(MaxDelay.Milliseconds()), j.Delay)
	}
	if err := ValidatePayload(j.Payload); err != nil {
		return withField(err, "job.payload")
	}
	return nil
}

// CheckKind checks the spec's job against its queue's kind: a priority queue's job needs a
// priority, a delayed queue's takes none. Returns EINVALID naming job.priority.
func (s ScheduleSpec) CheckKind(kind QueueKind) error {
	switch {
	case kind == PriorityQueue && !s.Job.HasPriority:
		return FieldErrorf("job.priority", EINVALID, "job.priority is required: queue %q is a priority queue; give a whole number from %d (first) to %d (last)", s.Queue, MinPriority, MaxPriority)
	case kind == PriorityQueue && s.Job.Delay != 0:
		return FieldErrorf("job.delay_ms", EINVALID, "job.delay_ms must be left out: queue %q is a priority queue, whose jobs take a priority, not a delay", s.Queue)
	case kind == DelayedQueue && s.Job.HasPriority:
		return FieldErrorf("job.priority", EINVALID, "job.priority must be left out: queue %q is a delayed queue; give a delay (or none: due when enqueued)", s.Queue)
	}
	return nil
}

// withField names field on a field-less *Error (the shared validators name none).
func withField(err error, field string) error {
	if e, ok := err.(*Error); ok {
		c := *e
		c.Field = field
		return &c
	}
	return err
}

// ScheduledJobID is the id of the job a schedule enqueues for the period starting at p:
// "<name>@<UTC, yyyymmddThhmmss.mmmZ>". One id per schedule and period, so an enqueue
// retried after a crash is refused by the queue rather than run twice.
func ScheduledJobID(name string, p time.Time) string {
	return name + "@" + p.UTC().Format("20060102T150405.000Z")
}

// Schedule is a schedule with its state.
type Schedule struct {
	ScheduleSpec
	Created   time.Time
	NextRun   time.Time // the next period's start (zero while paused)
	LastRun   time.Time // the start of the last period that ran, or when it was run now; zero: never
	LastJob   string    // the id of the job last enqueued, "" never
	LastError string    // why the last run enqueued nothing (the queue refused the job), "" when it did
	Paused    bool
}

// ScheduleRun is what one run of a schedule did.
type ScheduleRun struct {
	Schedule string
	Queue    string
	Period   time.Time // the period's start (the moment, for a run now)
	JobID    string
	// Enqueued is false when the job of that id already was in the queue (this period ran
	// before: nothing was added twice) or the queue refused it (Schedule.LastError says why).
	Enqueued bool
}

// ScheduleService keeps recurring schedules and runs them.
type ScheduleService interface {
	// CreateSchedule validates and saves a new schedule; its first period is the first after
	// now. Returns EINVALID naming the field (the queue's kind included), ECONFLICT when the
	// name is taken, EUNAVAILABLE.
	CreateSchedule(ctx context.Context, spec ScheduleSpec) (Schedule, error)
	// Schedules lists every schedule, sorted by name. Returns EUNAVAILABLE.
	Schedules(ctx context.Context) ([]Schedule, error)
	// Schedule returns one schedule. Returns ENOTFOUND, EINVALID, EUNAVAILABLE.
	Schedule(ctx context.Context, name string) (Schedule, error)
	// DeleteSchedule removes a schedule; its jobs already enqueued stay. Returns ENOTFOUND,
	// EINVALID, EUNAVAILABLE.
	DeleteSchedule(ctx context.Context, name string) error
	// PauseSchedule stops a schedule's runs until it is resumed; ResumeSchedule starts them
	// again at the first period after now (the periods in between do not run). Both return
	// the schedule as saved; ENOTFOUND, EINVALID, EUNAVAILABLE.
	PauseSchedule(ctx context.Context, name string) (Schedule, error)
	ResumeSchedule(ctx context.Context, name string) (Schedule, error)
	// RunScheduleNow enqueues the schedule's job now, beside its periods (a paused schedule
	// too). Returns ENOTFOUND, EINVALID, EUNAVAILABLE.
	RunScheduleNow(ctx context.Context, name string) (ScheduleRun, error)
}
