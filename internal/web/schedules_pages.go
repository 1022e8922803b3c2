package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/api"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// scheduleFields are the new-schedule form's fields, with the labels its errors name.
var scheduleFields = []struct{ name, label string }{
	{"name", "Name"}, {"queue", "Queue"}, {"every", "Every"}, {"cron", "Cron"}, {"zone", "Time zone"},
	{"type", "Job type"}, {"priority", "Priority"}, {"delay", "Delay"}, {"payload", "Payload"},
}

// schedulesPage is /schedules: the schedules, live on topic "schedules", and the form.
func (s *server) schedulesPage(c echo.Context) error {
	return s.renderSchedules(c, http.StatusOK, views.NewForm())
}

func (s *server) renderSchedules(c echo.Context, status int, f views.Form) error {
	var all []domain.Schedule
	var err error
	if s.Schedules != nil {
		all, err = s.Schedules.Schedules(c.Request().Context())
		if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
			return err
		}
	}
	ch := unavailable(s.chrome(c, "Schedules", domain.TopicSchedules), err)
	return s.render(c, status, views.SchedulesPage(ch, views.SchedulesPageData{Schedules: all, Form: f}))
}

// scheduleFormField maps an error's field (the API's names) to the form's input.
func scheduleFormField(field string) string {
	switch field {
	case "job.type":
		return "type"
	case "job.priority":
		return "priority"
	case "job.delay", "job.delay_ms":
		return "delay"
	case "job.payload":
		return "payload"
	}
	return field
}

// scheduleSpecOf reads the form into a spec; the service checks the rest.
func scheduleSpecOf(f views.Form) (domain.ScheduleSpec, error) {
	spec := domain.ScheduleSpec{Name: strings.TrimSpace(f.Value("name")), Queue: strings.TrimSpace(f.Value("queue")),
		Cron: strings.TrimSpace(f.Value("cron")), Zone: strings.TrimSpace(f.Value("zone"))}
	if v := strings.TrimSpace(f.Value("every")); v != "" {
		if spec.Cron != "" {
			return spec, domain.FieldErrorf("every", domain.EINVALID, "give every or cron, not both")
		}
		every, err := api.ParseEvery(v)
		if err != nil {
			return spec, err
		}
		spec.Every = every
	}
	spec.Job.Type = strings.TrimSpace(f.Value("type"))
	if v := strings.TrimSpace(f.Value("priority")); v != "" {
		p, err := httpio.PriorityInput.Parse(v)
		if err != nil {
			return spec, err
		}
		spec.Job.Priority, spec.Job.HasPriority = int(p), true
	}
	if v := strings.TrimSpace(f.Value("delay")); v != "" {
		d, err := httpio.DelayInput.Text(v)
		if err != nil {
			return spec, err
		}
		spec.Job.Delay = d
	}
	if v := strings.TrimSpace(f.Value("payload")); v != "" {
		if !json.Valid([]byte(v)) {
			return spec, domain.FieldErrorf("payload", domain.EINVALID, "payload must be valid JSON, e.g. {\"to\":\"ana@example.com\"}")
		}
		spec.Job.Payload = json.RawMessage(v)
	}
	return spec, nil
}

// createScheduleForm makes a schedule; an error shows beside the field it is about, naming
// its label.
func (s *server) createScheduleForm(c echo.Context) error {
	f := views.NewForm()
	for _, fl := range scheduleFields {
		f.Values[fl.name] = c.FormValue(fl.name)
	}
	spec, err := scheduleSpecOf(f)
	if err == nil {
		var sc domain.Schedule
		if sc, err = s.Schedules.CreateSchedule(c.Request().Context(), spec); err == nil {
			setFlash(c, "schedule", fmt.Sprintf("Schedule %s is made: its first run is %s.", sc.Name, sc.NextRun.Format("2006-01-02 15:04:05 MST")))
			return seeOther(c, "/schedules")
		}
	}
	status, msg, shown := httpio.FormFailure(err, "no schedule was made")
	if !shown {
		return err
	}
	field := scheduleFormField(domain.ErrorField(err))
	if _, ok := f.Values[field]; !ok {
		field = ""
	}
	for _, fl := range scheduleFields {
		if fl.name == field {
			msg = labelled(msg, domain.ErrorField(err), fl.label)
		}
	}
	f.Errors[field] = msg
	return s.renderSchedules(c, status, f)
}

// labelled makes a message that begins with the field's key (as the API's do: "job.priority
// must be…", "delay_ms must be…") begin with the label the user sees.
func labelled(msg, field, label string) string {
	for _, key := range []string{field, strings.TrimPrefix(field, "job."), strings.TrimPrefix(field, "job.") + "_ms"} {
		if rest, ok := strings.CutPrefix(msg, key+" "); ok && key != "" {
			return "“" + label + "” " + rest
		}
	}
	return msg
}

// scheduleButton runs a schedule's action (pause, resume, run now) and goes back to the list,
// saying what it did; a failure is the page with the message.
func (s *server) scheduleButton(act func(echo.Context, string) (string, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := httpio.PathParam(c, "name")
		if err := domain.ValidateScheduleName(name); err != nil {
			return err
		}
		done, err := act(c, name)
		if err != nil {
			status, msg, shown := httpio.FormFailure(err, "nothing was changed")
			if !shown {
				return err
			}
			f := views.NewForm()
			f.Errors[""] = msg
			return s.renderSchedules(c, status, f)
		}
		setFlash(c, "schedule", done)
		return seeOther(c, "/schedules")
	}
}

func (s *server) pauseScheduleAction(pause bool) func(echo.Context, string) (string, error) {
	return func(c echo.Context, name string) (string, error) {
		if pause {
			_, err := s.Schedules.PauseSchedule(c.Request().Context(), name)
			return "Schedule " + name + " is paused: no period runs until it is resumed.", err
		}
		sc, err := s.Schedules.ResumeSchedule(c.Request().Context(), name)
		return "Schedule " + name + " is resumed: its next run is " + sc.NextRun.Format("2006-01-02 15:04:05 MST") + ".", err
	}
}

func (s *server) runScheduleAction(c echo.Context, name string) (string, error) {
	run, err := s.Schedules.RunScheduleNow(c.Request().Context(), name)
	if err != nil {
		return "", err
	}
	if !run.Enqueued {
		return "Schedule " + name + " ran, but queue " + run.Queue + " took no new job (" + run.JobID + " is there already, or the queue refused it).", nil
	}
	return "Schedule " + name + " ran now: job " + run.JobID + " is on queue " + run.Queue + ".", nil
}

func (s *server) confirmDeleteSchedule(c echo.Context) (views.ConfirmData, error) {
	name := httpio.PathParam(c, "name")
	sc, err := s.Schedules.Schedule(c.Request().Context(), name)
	if err != nil {
		return views.ConfirmData{}, err
	}
	return views.ConfirmData{Need: domain.RoleOperator, Title: "Delete a schedule",
		What:   []string{fmt.Sprintf("This deletes schedule %s: it enqueues nothing more on queue %s. The jobs it enqueued stay.", sc.Name, sc.Queue)},
		Action: "/schedules/" + name + "/delete", Button: "Delete the schedule", Cancel: "/schedules", TestID: "confirm-delete-schedule"}, nil
}

func (s *server) deleteScheduleForm(c echo.Context) error {
	return s.scheduleButton(func(c echo.Context, name string) (string, error) {
		return "Schedule " + name + " is deleted; the jobs it enqueued stay.", s.Schedules.DeleteSchedule(c.Request().Context(), name)
	})(c)
}
