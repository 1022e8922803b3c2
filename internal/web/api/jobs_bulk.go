package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The API of what operators do with many jobs (search, bulk actions) and with a dead job
// before its retry.

func (h *Handlers) searchJobs(c echo.Context) error {
	opt, err := httpio.JobSearchOptions(c, h.Payloads(c))
	if err != nil {
		return err
	}
	page, err := h.Queues.SearchJobs(c.Request().Context(), httpio.PathParam(c, "queue"), opt)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.Audience(c).JobSearch(page))
}

// bulkRequestBody is POST /api/v1/queues/:queue/bulk's body.
type bulkRequestBody struct {
	Action string   `json:"action"`
	IDs    []string `json:"ids"`
	Match  *struct {
		State  string `json:"state"`
		Q      string `json:"q"`
		Cursor string `json:"cursor"`
	} `json:"match"`
}

func (h *Handlers) BulkJobs(c echo.Context) error {
	var body bulkRequestBody
	if err := httpio.DecodeJSON(c, &body); err != nil {
		return err
	}
	req := domain.BulkRequest{Action: domain.BulkAction(body.Action), IDs: body.IDs}
	if body.Match != nil {
		st, err := domain.ParseJobState(body.Match.State)
		if err != nil {
			return err
		}
		req.Match = &domain.JobSearchOptions{State: st, Text: body.Match.Q, Cursor: body.Match.Cursor}
	}
	res, err := h.Queues.BulkJobs(c.Request().Context(), httpio.PathParam(c, "queue"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// retryRequest is POST /api/v1/queues/:queue/jobs/:id/retry's body; every field optional.
type retryRequest struct {
	Payload  json.RawMessage `json:"payload"` // null: no payload
	Priority json.RawMessage `json:"priority"`
	RunAt    *string         `json:"run_at"`
}

// retry reads the body as the change to make. Returns EINVALID.
func (req retryRequest) retry() (domain.JobRetry, error) {
	var r domain.JobRetry
	if req.Payload != nil {
		r.HasPayload = true
		if string(req.Payload) != "null" {
			r.Payload = req.Payload
		}
	}
	var err error
	if r.Priority, r.HasPriority, err = decodePriority(req.Priority); err != nil {
		return r, err
	}
	if r.RunAt, err = decodeRunAt(req.RunAt); err != nil {
		return r, err
	}
	return r, r.Validate()
}

func (h *Handlers) Retry(c echo.Context) error {
	var req retryRequest
	if err := httpio.DecodeOptionalJSON(c, &req); err != nil { // no body: requeue unchanged
		return err
	}
	r, err := req.retry()
	if err != nil {
		return err
	}
	res, err := h.Queues.Retry(c.Request().Context(), httpio.PathParam(c, "queue"), httpio.PathParam(c, "id"), r)
	if err != nil {
		return err
	}
	httpio.AuditDetail(c, "%s", res.Edit)
	return c.JSON(http.StatusOK, res)
}
