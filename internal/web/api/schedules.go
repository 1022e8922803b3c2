package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// scheduleRequest is the body of POST /api/v1/schedules.
type scheduleRequest struct {
	Name  *string `json:"name"`
	Queue *string `json:"queue"`
	Every *string `json:"every"`
	Cron  *string `json:"cron"`
	Zone  *string `json:"zone"`
	Job   *struct {
		Type     *string         `json:"type"`
		Priority json.RawMessage `json:"priority"`
		DelayMs  json.RawMessage `json:"delay_ms"`
		Payload  json.RawMessage `json:"payload"`
	} `json:"job"`
}

// spec reads the request into a schedule's spec; the service validates the rest.
func (req scheduleRequest) spec() (domain.ScheduleSpec, error) {
	var spec domain.ScheduleSpec
	if req.Name == nil {
		return spec, domain.FieldErrorf("name", domain.EINVALID, "name is required: 1 to %d characters from A-Z, a-z, 0-9 and . _ -", domain.MaxScheduleName)
	}
	if req.Queue == nil {
		return spec, domain.FieldErrorf("queue", domain.EINVALID, "queue is required: the queue the schedule enqueues on")
	}
	spec.Name, spec.Queue = *req.Name, *req.Queue
	if req.Every != nil && req.Cron != nil {
		return spec, domain.FieldErrorf("every", domain.EINVALID, "give every or cron, not both")
	}
	if req.Every != nil {
		every, err := ParseEvery(*req.Every)
		if err != nil {
			return spec, err
		}
		spec.Every = every
	}
	if req.Cron != nil {
		if strings.TrimSpace(*req.Cron) == "" {
			return spec, domain.FieldErrorf("cron", domain.EINVALID, "cron must be 5 fields: minute hour day-of-month month day-of-week, e.g. 0 3 * * *")
		}
		spec.Cron = *req.Cron
	}
	if req.Zone != nil {
		spec.Zone = *req.Zone
	}
	if j := req.Job; j != nil {
		if j.Type != nil {
			if *j.Type == "" {
				return spec, domain.FieldErrorf("job.type", domain.EINVALID, "job type must be 1 to %d characters, or left out", domain.MaxJobType)
			}
			spec.Job.Type = *j.Type
		}
		if j.Priority != nil {
			p, err := httpio.PriorityInput.JSON(j.Priority)
			if err != nil {
				return spec, fieldOf(err, "job.priority")
			}
			spec.Job.Priority, spec.Job.HasPriority = int(p), true
		}
		if j.DelayMs != nil {
			d, err := httpio.ScheduleDelayInput.Millis(j.DelayMs)
			if err != nil {
				return spec, err
			}
			spec.Job.Delay = d
		}
		if len(j.Payload) > 0 && string(j.Payload) != "null" {
			spec.Job.Payload = j.Payload
		}
	}
	return spec, nil
}

// ParseEvery reads a schedule's interval as people and the API give it: Go's notation
// ("30s", "10m", "1h30m"), from 1 s to a year. Returns EINVALID naming "every".
func ParseEvery(s string) (time.Duration, error) {
	d, err := httpio.EveryInput.Text(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	return d, nil
}

// fieldOf names field on a field-less or differently named input error.
func fieldOf(err error, field string) error {
	if e, ok := err.(*domain.Error); ok {
		c := *e
		c.Field = field
		return &c
	}
	return err
}

// ScheduleJSON is a schedule as the API answers it.
type ScheduleJSON struct {
	Name      string           `json:"name"`
	Queue     string           `json:"queue"`
	Every     string           `json:"every,omitempty"`
	Cron      string           `json:"cron,omitempty"`
	Zone      string           `json:"zone"`
	Job       ScheduledJobJSON `json:"job"`
	NextRun   *time.Time       `json:"next_run"`
	LastRun   *time.Time       `json:"last_run"`
	LastJob   *string          `json:"last_job"`
	LastError string           `json:"last_error,omitempty"`
	Paused    bool             `json:"paused"`
	Created   time.Time        `json:"created"`
}

// ScheduledJobJSON is a schedule's job as the API answers it.
type ScheduledJobJSON struct {
	Type     string          `json:"type,omitempty"`
	Priority *int            `json:"priority,omitempty"`
	DelayMs  int64           `json:"delay_ms,omitempty"`
	Payload  json.RawMessage `json:"payload,omitempty"`
}

// FormatEvery writes an interval as Go's notation, short: "1m", "1h30m", "90s" → "1m30s".
func FormatEvery(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ScheduleOf is a schedule as the API answers it; payloads only for who sees them.
func ScheduleOf(sc domain.Schedule, payloads bool) ScheduleJSON {
	out := ScheduleJSON{Name: sc.Name, Queue: sc.Queue, Cron: sc.Cron, Zone: sc.Zone, LastError: sc.LastError, Paused: sc.Paused, Created: sc.Created,
		Job: ScheduledJobJSON{Type: sc.Job.Type, DelayMs: sc.Job.Delay.Milliseconds()}}
	if sc.Every != 0 {
		out.Every = FormatEvery(sc.Every)
	}
	if sc.Job.HasPriority {
		p := sc.Job.Priority
		out.Job.Priority = &p
	}
	if payloads {
		out.Job.Payload = sc.Job.Payload
	}
	if !sc.NextRun.IsZero() {
		t := sc.NextRun
		out.NextRun = &t
	}
	if !sc.LastRun.IsZero() {
		t := sc.LastRun
		out.LastRun = &t
	}
	if sc.LastJob != "" {
		j := sc.LastJob
		out.LastJob = &j
	}
	return out
}

// scheduleName is the schedule in the path.
func scheduleName(c echo.Context) (string, error) {
	name := httpio.PathParam(c, "name")
	return name, domain.ValidateScheduleName(name)
}

func (h *Handlers) ListSchedules(c echo.Context) error {
	all, err := h.Schedules.Schedules(c.Request().Context())
	if err != nil {
		return err
	}
	payloads := h.Payloads(c)
	out := make([]ScheduleJSON, 0, len(all))
	for _, sc := range all {
		out = append(out, ScheduleOf(sc, payloads))
	}
	return c.JSON(http.StatusOK, map[string]any{"schedules": out})
}

func (h *Handlers) GetSchedule(c echo.Context) error {
	name, err := scheduleName(c)
	if err != nil {
		return err
	}
	sc, err := h.Schedules.Schedule(c.Request().Context(), name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ScheduleOf(sc, h.Payloads(c)))
}

func (h *Handlers) CreateSchedule(c echo.Context) error {
	var req scheduleRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	spec, err := req.spec()
	if err != nil {
		return err
	}
	sc, err := h.Schedules.CreateSchedule(c.Request().Context(), spec)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, ScheduleOf(sc, h.Payloads(c)))
}

func (h *Handlers) DeleteSchedule(c echo.Context) error {
	name, err := scheduleName(c)
	if err != nil {
		return err
	}
	if err := h.Schedules.DeleteSchedule(c.Request().Context(), name); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// PauseSchedule pauses (pause) or resumes a schedule and answers it as saved.
func (h *Handlers) PauseSchedule(pause bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, err := scheduleName(c)
		if err != nil {
			return err
		}
		change := h.Schedules.ResumeSchedule
		if pause {
			change = h.Schedules.PauseSchedule
		}
		sc, err := change(c.Request().Context(), name)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, ScheduleOf(sc, h.Payloads(c)))
	}
}

// RunScheduleNow enqueues a schedule's job now and answers the run: {"schedule", "queue",
// "job_id", "enqueued"}.
func (h *Handlers) RunScheduleNow(c echo.Context) error {
	name, err := scheduleName(c)
	if err != nil {
		return err
	}
	run, err := h.Schedules.RunScheduleNow(c.Request().Context(), name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"schedule": run.Schedule, "queue": run.Queue, "job_id": run.JobID, "enqueued": run.Enqueued, "at": run.Period})
}
