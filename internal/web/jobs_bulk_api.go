package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The API of what operators do with many jobs (search, bulk actions) and with a dead job
// before its retry.

// jobSearchOptions reads a search from ?state=&q=&limit=&cursor=. A viewer who may not see
// payloads (not an admin while an admin token is set) matches ids only: a payload match
// would tell what a payload holds.
func jobSearchOptions(c echo.Context) (domain.JobSearchOptions, error) {
	list, err := jobListQuery(c)
	if err != nil {
		return domain.JobSearchOptions{}, err
	}
	opt := domain.JobSearchOptions{State: list.State, Text: c.QueryParam("q"), IDsOnly: !who(c).admin, Limit: list.Limit, Cursor: list.Cursor}
	return opt, opt.Validate()
}

// searching says whether a jobs list asks for a search (?q=, even empty).
func searching(c echo.Context) bool {
	_, ok := c.QueryParams()["q"]
	return ok
}

func (s *server) apiSearchJobs(c echo.Context) error {
	opt, err := jobSearchOptions(c)
	if err != nil {
		return err
	}
	page, err := s.Queues.SearchJobs(c.Request().Context(), pathParam(c, "queue"), opt)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
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

func (s *server) apiBulkJobs(c echo.Context) error {
	var body bulkRequestBody
	if err := decodeJSON(c, &body); err != nil {
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
	res, err := s.Queues.BulkJobs(c.Request().Context(), pathParam(c, "queue"), req)
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

func (s *server) apiRetry(c echo.Context) error {
	var req retryRequest
	if err := decodeOptionalJSON(c, &req); err != nil { // no body: requeue unchanged
		return err
	}
	r, err := req.retry()
	if err != nil {
		return err
	}
	res, err := s.Queues.Retry(c.Request().Context(), pathParam(c, "queue"), pathParam(c, "id"), r)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
