package web

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// queueForm handles one of a queue page's forms (see handleForm).
func (s *server) queueForm(id string, fields []string, act formAction) echo.HandlerFunc {
	return s.handleForm(pageForms{
		param:     "queue",
		wholePage: []string{"settings"},
		back: func(c echo.Context, queue string) string {
			return backWithin(c, queuePath(queue), queuePath(queue)+"/jobs")
		},
		page: s.queuePageWith,
		section: func(c echo.Context, status int, queue, id string, f views.Form) error {
			v, _ := s.queueView(c.Request().Context(), queue)
			return s.render(c, status, views.QueueForm(s.chrome(c, queue), queue, id, f, v.Settings, v.PayloadKey))
		},
	}, id, fields, act)
}

func (s *server) enqueueAction(ctx context.Context, queue string, f views.Form) (string, string, error) {
	set, err := s.Queues.Settings(ctx, queue)
	if err != nil {
		return "", "", err
	}
	// The form's text is parsed here; what the job says is checked by domain.NewJob, as
	// for the API.
	job := domain.NewJob{ID: f.Value("id"), Type: f.Value("type"), Payload: []byte(f.Value("payload"))}
	if set.Kind == domain.DelayedQueue {
		if v := f.Value("delay"); v != "" {
			d, err := httpio.DelayInput.Text(v)
			noteError(f.Errors, err)
			job.Delay = d
		}
		if v := f.Value("run_at"); v != "" {
			t, err := httpio.RunAtInput.Parse(v)
			noteError(f.Errors, err)
			job.RunAt = t
		}
	} else {
		p, err := httpio.PriorityInput.Parse(f.Value("priority"))
		noteError(f.Errors, err)
		job.Priority, job.HasPriority = int(p), true
	}
	for field, err := range job.Problems() {
		if f.Errors[field] == "" {
			f.Errors[field] = domain.ErrorMessage(err)
		}
	}
	if !f.OK() {
		return "", "", nil
	}
	e, err := s.Queues.Enqueue(ctx, queue, job)
	field := "id"
	if domain.ErrorCode(err) == domain.EINVALID {
		field = "" // the queue changed kind meanwhile, or the clock: the form as a whole
	}
	if err != nil {
		return "", field, err
	}
	if e.RunAt != nil {
		return fmt.Sprintf("Scheduled %s for %s.", e.ID, e.RunAt.Format("2006-01-02 15:04:05Z")), "", nil
	}
	return fmt.Sprintf("Enqueued %s at priority %d.", e.ID, *e.Priority), "", nil
}

func (s *server) queueSettingsAction(ctx context.Context, queue string, f views.Form) (string, string, error) {
	set := domain.QueueSettings{Kind: domain.QueueKind(f.Value("kind"))}
	n, err := httpio.MaxAttemptsInput.Parse(f.Value("max_attempts"))
	if !noteError(f.Errors, err) {
		return "", "", nil
	}
	set.MaxAttempts = int(n)
	_, err = s.Queues.UpdateSettings(ctx, queue, set)
	return "Settings saved.", "kind", err
}

// jobButton handles a job's button (requeue, delete): with htmx a 204 (the live panel shows
// the change); without JavaScript a redirect back with the outcome in a flash.
func (s *server) jobButton(act func(ctx context.Context, queue, id string) (string, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		queue, id := httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")
		done, err := act(c.Request().Context(), queue, id)
		if err != nil {
			return err
		}
		if isHTMX(c) {
			return c.NoContent(http.StatusNoContent)
		}
		setFlash(c, "job", done)
		return seeOther(c, queuePath(queue))
	}
}

func (s *server) requeueJob(ctx context.Context, queue, id string) (string, error) {
	return fmt.Sprintf("Requeued %s.", id), s.Queues.Requeue(ctx, queue, id)
}

func (s *server) deleteJob(ctx context.Context, queue, id string) (string, error) {
	where, err := s.Queues.Delete(ctx, queue, id)
	return fmt.Sprintf("Deleted %s (it was %s).", id, where), err
}
