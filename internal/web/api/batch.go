package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The batch API: many items in one request, each its own atomic step with its own answer.
// A well-formed batch answers 200 with {"results": [...]}, one element per item in order:
// the item's value as the single call would answer it, or {"error": {"code", "message"}}
// (the error envelope) for an item that failed alone. A malformed batch (bad JSON, too many
// items, a bad name) is refused whole with the usual 4xx.

// batchResults is the body of a batch's answer.
type batchResults struct {
	Results []any `json:"results"`
}

// itemError is the envelope of one item's error.
func itemError(err error) httpio.APIError {
	_, e := httpio.APIErrorOf(err)
	return e
}

// answerBatch reads each item, sends those that read in one call and answers every item in
// its place: the call's result, or the error that kept it from being sent. A batch in which
// no item reads changes nothing, and says so to the watcher's nudge.
func answerBatch[In, Item, Out any](c echo.Context, items []In, read func(In) (Item, error), send func([]Item) ([]domain.Result[Out], error)) error {
	results := make([]any, len(items))
	valid := make([]Item, 0, len(items))
	sent := make([]int, 0, len(items))
	for i, in := range items {
		item, err := read(in)
		if err != nil {
			results[i] = itemError(err)
			continue
		}
		valid = append(valid, item)
		sent = append(sent, i)
	}
	if len(valid) == 0 {
		httpio.MarkUnchanged(c)
		return c.JSON(http.StatusOK, batchResults{results})
	}
	out, err := send(valid)
	if err != nil {
		return err
	}
	for j, r := range out {
		results[sent[j]] = valueOrError(r.Value, r.Err)
	}
	return c.JSON(http.StatusOK, batchResults{results})
}

// AddPointsBatch: {"scores": [{"player", "points"}, ...]}, up to domain.MaxBatchScores.
func (h *Handlers) AddPointsBatch(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	var req struct {
		Scores []addPointsRequest `json:"scores"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if err := domain.ValidateBatch("scores", len(req.Scores), domain.MaxBatchScores); err != nil {
		return err
	}
	return answerBatch(c, req.Scores, addPointsRequest.scoreAdd, func(adds []domain.ScoreAdd) ([]domain.Result[domain.Entry], error) {
		return h.Leaderboards.AddPointsBatch(c.Request().Context(), board, adds)
	})
}

// EnqueueBatch: {"jobs": [enqueue request, ...]}, up to domain.MaxBatchJobs.
func (h *Handlers) EnqueueBatch(c echo.Context) error {
	var req struct {
		Jobs []enqueueRequest `json:"jobs"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if err := domain.ValidateBatch("jobs", len(req.Jobs), domain.MaxBatchJobs); err != nil {
		return err
	}
	return answerBatch(c, req.Jobs, enqueueRequest.job, func(jobs []domain.NewJob) ([]domain.Result[domain.Enqueued], error) {
		return h.Queues.EnqueueBatch(c.Request().Context(), httpio.PathParam(c, "queue"), jobs)
	})
}

// PollBatch: {"count": 1..domain.MaxBatchPoll, "lease_ms"}: the jobs leased, each with
// its own token; fewer (maybe none) when fewer are due.
func (h *Handlers) PollBatch(c echo.Context) error {
	var req struct {
		Count    json.RawMessage `json:"count"`
		LeaseMs  json.RawMessage `json:"lease_ms"`
		Consumer *string         `json:"consumer"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.Count == nil || req.LeaseMs == nil {
		return domain.Errorf(domain.EINVALID, "count (1 to %d) and lease_ms (%d to %d) are required", domain.MaxBatchPoll, domain.MinLease.Milliseconds(), domain.MaxLease.Milliseconds())
	}
	n, err := httpio.BatchCountInput.JSON(req.Count)
	if err != nil {
		return err
	}
	lease, err := httpio.LeaseInput.Millis(req.LeaseMs)
	if err != nil {
		return err
	}
	consumer, err := pollConsumer(c, req.Consumer)
	if err != nil {
		return err
	}
	ds, err := h.Queues.PollBatch(c.Request().Context(), httpio.PathParam(c, "queue"), int(n), lease, consumer)
	if err != nil {
		return err
	}
	if len(ds) == 0 {
		httpio.MarkUnchanged(c)
	}
	if ds == nil {
		ds = []domain.Delivery{}
	}
	return c.JSON(http.StatusOK, map[string]any{"jobs": ds})
}

// AckBatch: {"acks": [{"id", "token"}, ...]}, up to domain.MaxBatchAcks; each result is
// {"id", "acked": true} or the item's error.
func (h *Handlers) AckBatch(c echo.Context) error {
	var req struct {
		Acks []domain.AckItem `json:"acks"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if err := domain.ValidateBatch("acks", len(req.Acks), domain.MaxBatchAcks); err != nil {
		return err
	}
	errs, err := h.Queues.AckBatch(c.Request().Context(), httpio.PathParam(c, "queue"), req.Acks)
	if err != nil {
		return err
	}
	results := make([]any, len(errs))
	for i, e := range errs {
		results[i] = valueOrError(ackedItem{ID: req.Acks[i].ID, Acked: true}, e)
	}
	return c.JSON(http.StatusOK, batchResults{results})
}

type ackedItem struct {
	ID    string `json:"id"`
	Acked bool   `json:"acked"`
}

func valueOrError(v any, err error) any {
	if err != nil {
		return itemError(err)
	}
	return v
}
