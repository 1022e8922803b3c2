package web

import (
	"context"
	"fmt"
	"net/http"

	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// The pages of what operators do with jobs: a job's page, the lists by state, and the
// confirmation steps of destructive actions (plain GET pages whose button posts: no
// JavaScript needed, and each says what it will do before it is done).

func (s *server) jobPage(c echo.Context) error {
	queue, id := httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")
	j, err := s.Queues.Job(c.Request().Context(), queue, id)
	if err != nil {
		return err
	}
	j = s.audience(c).Job(j)
	return s.render(c, http.StatusOK, views.JobPage(s.chrome(c, id, panels.Job.Topic(panels.JobParams{Queue: queue, ID: id})), j, views.RetryFormValues(j)))
}

// jobsPage lists a queue's jobs in one state, or searches them (?q=); ?id=ID (the "open a
// job" box) goes to that job.
func (s *server) jobsPage(c echo.Context) error {
	queue := httpio.PathParam(c, "queue")
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return err
	}
	if ids, asked := c.QueryParams()["id"]; asked {
		if err := domain.ValidateJobID(ids[0]); err != nil {
			return err
		}
		return seeOther(c, queuePath(queue)+"/jobs/"+url.PathEscape(ids[0]))
	}
	if httpio.Searching(c) {
		return s.searchPage(c, queue)
	}
	opt, err := httpio.JobListOptions(c)
	if err != nil {
		return err
	}
	page, err := s.Queues.Jobs(c.Request().Context(), queue, opt)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	if page.Queue == "" {
		page = domain.JobPage{Queue: queue, State: opt.State}
	}
	var groups *domain.DeadErrorGroups
	if err == nil && opt.State == domain.JobDead && opt.Cursor == "" && page.Counts.Dead > 0 {
		g, gerr := s.Queues.DeadErrors(c.Request().Context(), queue)
		if gerr != nil && domain.ErrorCode(gerr) != domain.EUNAVAILABLE {
			return gerr
		}
		err, groups = gerr, &g
	}
	return s.render(c, http.StatusOK, views.JobsPage(unavailable(s.chrome(c, queue+" jobs"), err), page, s.queuePaused(c, queue), nil, groups))
}

// queuePaused says whether a queue is paused, for its pages' badge: a failed read (Redis
// down, which the page says already) shows no badge.
func (s *server) queuePaused(c echo.Context, queue string) bool {
	paused, err := s.Queues.Paused(c.Request().Context(), queue)
	return err == nil && paused
}

// confirmPage renders the confirmation step ask describes.
func (s *server) confirmPage(ask func(c echo.Context) (views.ConfirmData, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		d, err := ask(c)
		if err != nil {
			return err
		}
		return s.render(c, http.StatusOK, views.ConfirmPage(s.chrome(c, d.Title), d))
	}
}

func (s *server) confirmDeleteJob(c echo.Context) (views.ConfirmData, error) {
	queue, id := httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")
	j, err := s.Queues.Job(c.Request().Context(), queue, id)
	if err != nil {
		return views.ConfirmData{}, err
	}
	return views.ConfirmData{
		Need:  domain.RoleOperator,
		Title: "Delete a job",
		What: []string{
			fmt.Sprintf("This deletes job %s of queue %s, now %s, with its payload, attempt count and kept errors.", id, queue, stateWord(j.State)),
			"It cannot be undone.",
		},
		Action: queuePath(queue) + "/jobs/" + url.PathEscape(id) + "/delete",
		Button: "Delete the job", Cancel: queuePath(queue) + "/jobs/" + url.PathEscape(id), TestID: "confirm-delete-job",
	}, nil
}

func stateWord(s domain.JobState) string {
	if s == domain.JobInFlight {
		return "in flight (its consumer's ack will then fail)"
	}
	return string(s)
}

func (s *server) confirmRequeueDead(c echo.Context) (views.ConfirmData, error) {
	d, err := s.confirmDead(c, "Requeue every dead job", "requeue", "Requeue all dead jobs", "confirm-requeue-dead",
		"This puts each of the %s dead jobs of queue %s back in the queue, due now (a priority queue's job keeps its priority), with its attempts reset.",
		"It works in batches of 500, each atomic; jobs that die meanwhile stay for the next requeue.")
	d.Keeps = true
	return d, err
}

func (s *server) confirmDeleteDead(c echo.Context) (views.ConfirmData, error) {
	return s.confirmDead(c, "Delete every dead job", "delete", "Delete all dead jobs", "confirm-delete-dead",
		"This deletes each of the %s dead jobs of queue %s with its payload, attempt count and kept errors. It cannot be undone.",
		"It works in batches of 500, each atomic. Export them as CSV first to keep a record.")
}

func (s *server) confirmDead(c echo.Context, title, action, button, testID, what, how string) (views.ConfirmData, error) {
	queue := httpio.PathParam(c, "queue")
	page, err := s.Queues.Jobs(c.Request().Context(), queue, domain.JobListOptions{State: domain.JobDead, Limit: 1})
	if err != nil {
		return views.ConfirmData{}, err
	}
	d := views.ConfirmData{Title: title, Action: queuePath(queue) + "/dead/" + action, Button: button, Cancel: queuePath(queue), TestID: testID,
		What: []string{fmt.Sprintf(what, views.FormatCount(page.Counts.Dead), queue), how}}
	if page.Counts.Dead == 0 {
		d.Refused = fmt.Sprintf("Queue %s has no dead job: there is nothing to do.", queue)
	}
	return d, nil
}

// queueAction handles a queue's button or confirmed action: with htmx a 204 (the live panel
// shows the change); without JavaScript a redirect to the queue's page with what it did.
func (s *server) queueAction(act func(ctx context.Context, queue string) (string, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		queue := httpio.PathParam(c, "queue")
		done, err := act(c.Request().Context(), queue)
		if err != nil {
			return err
		}
		if isHTMX(c) {
			return c.NoContent(http.StatusNoContent)
		}
		setFlash(c, "job", done)
		return seeOther(c, backWithin(c, queuePath(queue), queuePath(queue)+"/jobs"))
	}
}

func (s *server) requeueDeadAction(ctx context.Context, queue string) (string, error) {
	res, err := s.Queues.RequeueDead(ctx, queue)
	msg := fmt.Sprintf("Requeued %s dead %s.", views.FormatCount(res.Moved), views.Plural(res.Moved, "job", "jobs"))
	if res.Skipped > 0 {
		msg += fmt.Sprintf(" %s stayed dead: a job of the same id waits again.", views.FormatCount(res.Skipped))
	}
	return msg, err
}

func (s *server) deleteDeadAction(ctx context.Context, queue string) (string, error) {
	res, err := s.Queues.DeleteDead(ctx, queue)
	return fmt.Sprintf("Deleted %s dead %s.", views.FormatCount(res.Moved), views.Plural(res.Moved, "job", "jobs")), err
}

func (s *server) pauseAction(paused bool) func(ctx context.Context, queue string) (string, error) {
	return func(ctx context.Context, queue string) (string, error) {
		if paused {
			return "Paused: polls through zpulse answer nothing. Consumers reading Redis directly are not stopped.", s.Queues.SetPaused(ctx, queue, true)
		}
		return "Resumed: polls take jobs again.", s.Queues.SetPaused(ctx, queue, false)
	}
}

func (s *server) confirmDeleteLimiter(c echo.Context) (views.ConfirmData, error) {
	name := httpio.PathParam(c, "limiter")
	if domain.BuiltinLimiter(name) {
		return views.ConfirmData{Title: "Delete a limiter policy", Cancel: limiterPath(name),
			Refused: fmt.Sprintf("Policy %s is built in: zpulse needs it, so it cannot be deleted.", name)}, nil
	}
	p, err := s.Limiters.Policy(c.Request().Context(), name)
	if err != nil {
		return views.ConfirmData{}, err
	}
	d := views.ConfirmData{Title: "Delete a limiter policy", Action: limiterPath(name) + "/delete", Button: "Delete the policy",
		Cancel: limiterPath(name), TestID: "confirm-delete-limiter",
		What: []string{fmt.Sprintf("This deletes policy %s (%s, limit %d) and its list of clients. Checks under it then answer not found; its clients' counters expire with their windows.", name, p.Algorithm, p.Limit)}}
	return d, nil
}

func (s *server) deleteLimiterForm(c echo.Context) error {
	name := httpio.PathParam(c, "limiter")
	err := s.Limiters.DeletePolicy(c.Request().Context(), name)
	switch domain.ErrorCode(err) {
	case "":
		return seeOther(c, "/limiters")
	case domain.ECONFLICT, domain.ENOTFOUND:
		d := views.ConfirmData{Title: "Delete a limiter policy", Cancel: limiterPath(name), Refused: domain.ErrorMessage(err)}
		return s.render(c, httpio.StatusOf(domain.ErrorCode(err)), views.ConfirmPage(s.chrome(c, d.Title), d))
	default:
		return err
	}
}
