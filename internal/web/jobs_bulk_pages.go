package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/payloaddiff"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// The pages of what operators do with many jobs (a search, bulk actions after a confirmation)
// and with a dead job before its retry (the edit and retry form).

// searchPage is one step of a search of a queue's jobs (?state=&q=&cursor=).
func (s *server) searchPage(c echo.Context, queue string) error {
	opt, err := httpio.JobSearchOptions(c, s.audience(c).Sees(domain.JobPayloads))
	if err != nil {
		return err
	}
	res, err := s.Queues.SearchJobs(c.Request().Context(), queue, opt)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	res = s.audience(c).JobSearch(res)
	res.Queue, res.State, res.Text = queue, opt.State, opt.Text
	page := domain.JobPage{Queue: queue, State: opt.State, Counts: res.Counts}
	return s.render(c, http.StatusOK, views.JobsPage(unavailable(s.chrome(c, queue+" jobs"), err), page, s.queuePaused(c, queue), &res, nil))
}

// bulkRequest reads a bulk action as the jobs page's form gives it: action, and the ids
// ticked (id=…) or all=1 with the list or search it came from (state, q, cursor).
func bulkRequest(v url.Values) (domain.BulkRequest, error) {
	action, err := domain.ParseBulkAction(v.Get("action"))
	if err != nil {
		return domain.BulkRequest{}, err
	}
	req := domain.BulkRequest{Action: action, IDs: v["id"]}
	if v.Get("all") == "1" {
		st, err := domain.ParseJobState(v.Get("state"))
		if err != nil {
			return req, err
		}
		req.IDs, req.Match = nil, &domain.JobSearchOptions{State: st, Text: v.Get("q"), Cursor: v.Get("cursor")}
	} else if len(req.IDs) == 0 {
		return req, domain.Errorf(domain.EINVALID, "tick at least one job, or \"all\", then choose the action")
	}
	return req, req.Validate()
}

// bulkVerbs are each action's words: the confirmation's title and what it does to a job, the
// button, and the outcome.
var bulkVerbs = map[domain.BulkAction][4]string{
	domain.BulkRequeue: {"Requeue jobs", "goes back to the queue, due now (a priority queue's job keeps its priority), with its attempts reset, if it is dead", "Requeue", "Requeued"},
	domain.BulkKill:    {"Move jobs to the dead set", "moves to the dead set if it is waiting, scheduled or in flight (its consumer's ack then fails)", "Move to dead", "Moved to the dead set"},
	domain.BulkDelete:  {"Delete jobs", "is deleted wherever it is, with its payload, attempt count and kept errors; this cannot be undone", "Delete", "Deleted"},
}

func (s *server) confirmBulk(c echo.Context) (views.ConfirmData, error) {
	queue := httpio.PathParam(c, "queue")
	if err := domain.ValidateName("queue", queue); err != nil {
		return views.ConfirmData{}, err
	}
	v := c.QueryParams()
	req, err := bulkRequest(v)
	verbs := bulkVerbs[req.Action]
	d := views.ConfirmData{Title: verbs[0], Action: queuePath(queue) + "/bulk", Button: verbs[2], TestID: "confirm-bulk",
		Cancel: queuePath(queue) + "/jobs?" + url.Values{"state": {v.Get("state")}}.Encode()}
	if err != nil {
		d.Title, d.Refused = "Act on jobs", domain.ErrorMessage(err)
		return d, nil
	}
	d.Keeps = req.Action == domain.BulkRequeue // a requeue deletes nothing: not the red button
	d.Hidden = append(d.Hidden, [2]string{"action", string(req.Action)})
	if m := req.Match; m != nil {
		d.Hidden = append(d.Hidden, [2]string{"all", "1"}, [2]string{"state", string(m.State)}, [2]string{"q", m.Text}, [2]string{"cursor", m.Cursor})
		which := fmt.Sprintf("every %s job of queue %s", m.State, queue)
		if m.Text != "" {
			which += fmt.Sprintf(" whose id starts with %q or whose payload contains it", m.Text)
		}
		d.What = []string{fmt.Sprintf("Each of %s %s.", which, verbs[1]),
			fmt.Sprintf("It scans up to %s jobs, acting in atomic batches of %d, and says how far it got: run it again to go on.", views.FormatCount(domain.MaxBulkScan), domain.DeadBatch)}
		return d, nil
	}
	for _, id := range req.IDs {
		d.Hidden = append(d.Hidden, [2]string{"id", id})
	}
	d.What = []string{fmt.Sprintf("Each of the %s selected %s of queue %s %s.", views.FormatCount(int64(len(req.IDs))), views.Plural(int64(len(req.IDs)), "job", "jobs"), queue, verbs[1]),
		"A job in another state is left as it is and counted as failed, with the reason."}
	return d, nil
}

// bulkForm does a confirmed bulk action and goes back to the queue's page with what it did.
func (s *server) bulkForm(c echo.Context) error {
	queue := httpio.PathParam(c, "queue")
	v, err := c.FormParams()
	if err != nil {
		return domain.Errorf(domain.EINVALID, "the form could not be read")
	}
	req, err := bulkRequest(v)
	if err != nil {
		return err
	}
	res, err := s.Queues.BulkJobs(c.Request().Context(), queue, req)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s %s %s.", bulkVerbs[req.Action][3], views.FormatCount(res.Done), views.Plural(res.Done, "job", "jobs"))
	if res.Failed > 0 {
		var why []string
		for _, f := range res.Failures[:min(5, len(res.Failures))] {
			why = append(why, fmt.Sprintf("%s (%s)", f.ID, strings.ReplaceAll(f.Reason, "_", " ")))
		}
		msg += fmt.Sprintf(" %s failed: %s.", views.FormatCount(res.Failed), strings.Join(why, ", "))
	}
	if res.Next != "" {
		msg += fmt.Sprintf(" It scanned %s jobs and stopped there: run it again to go on.", views.FormatCount(res.Scanned))
	}
	setFlash(c, "job", msg)
	return seeOther(c, backWithin(c, queuePath(queue), queuePath(queue)+"/jobs"))
}

// retryJobForm requeues a dead job with what the edit and retry form changed (the fields
// that differ from the job as it is); a problem shows on the form.
func (s *server) retryJobForm(c echo.Context) error {
	ctx := c.Request().Context()
	queue, id := httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")
	j, err := s.Queues.Job(ctx, queue, id)
	if err != nil {
		return err
	}
	f := views.RetryForm{Form: views.NewForm(), Previewed: c.FormValue("preview") != ""}
	for _, name := range []string{"payload", "priority", "run_at"} {
		f.Values[name] = strings.TrimSpace(c.FormValue(name))
	}
	was := views.RetryFormValues(j)
	var r domain.JobRetry
	if p := f.Value("payload"); !sameJSON(p, was.Value("payload")) {
		r.Payload, r.HasPayload = []byte(p), true
		if err := domain.ValidatePayload(r.Payload); err != nil {
			f.Errors["payload"] = domain.ErrorMessage(err)
		}
	}
	if p := f.Value("priority"); p != "" && p != was.Value("priority") {
		n, err := httpio.PriorityInput.Parse(p)
		if err != nil {
			f.Errors["priority"] = domain.ErrorMessage(err)
		}
		r.Priority, r.HasPriority = int(n), true
	}
	if t := f.Value("run_at"); t != "" {
		at, err := httpio.RunAtInput.Parse(t)
		noteError(f.Errors, err)
		r.RunAt = at
	}
	status := http.StatusBadRequest
	switch {
	case f.OK() && f.Previewed: // nothing requeued: the form again, with what the payload edit changes
		if r.HasPayload {
			f.Changes = payloaddiff.Compare(j.Payload, r.Payload)
		}
		status = http.StatusOK
	case f.OK():
		res, err := s.Queues.Retry(ctx, queue, id, r)
		if err == nil {
			httpio.AuditDetail(c, "%s", res.Edit)
			setFlash(c, "retry", "Requeued"+strings.TrimPrefix(res.Edit, "requeued by an operator")+".")
			return seeOther(c, queuePath(queue)+"/jobs/"+url.PathEscape(id))
		}
		switch code := domain.ErrorCode(err); code {
		case domain.EINVALID, domain.ENOTFOUND, domain.ECONFLICT:
			f.Errors[""], status = domain.ErrorMessage(err), httpio.StatusOf(code)
		default:
			return err
		}
	}
	return s.render(c, status, views.JobPage(s.chrome(c, id, panels.Job.Topic(panels.JobParams{Queue: queue, ID: id})), j, f))
}

// sameJSON says whether two payload texts are the same JSON (spacing aside), or both empty.
func sameJSON(a, b string) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, []byte(a)) != nil || json.Compact(&y, []byte(b)) != nil {
		return a == b
	}
	return x.String() == y.String()
}
