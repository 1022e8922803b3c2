package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
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
func itemError(err error) apiError {
	_, e := apiErrorOf(err)
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
		unchanged(c)
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

// apiAddPointsBatch: {"scores": [{"player", "points"}, ...]}, up to domain.MaxBatchScores.
func (s *server) apiAddPointsBatch(c echo.Context) error {
	board := pathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	var req struct {
		Scores []addPointsRequest `json:"scores"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := domain.ValidateBatch("scores", len(req.Scores), domain.MaxBatchScores); err != nil {
		return err
	}
	return answerBatch(c, req.Scores, addPointsRequest.scoreAdd, func(adds []domain.ScoreAdd) ([]domain.Result[domain.Entry], error) {
		return s.Leaderboards.AddPointsBatch(c.Request().Context(), board, adds)
	})
}

// apiEnqueueBatch: {"jobs": [enqueue request, ...]}, up to domain.MaxBatchJobs.
func (s *server) apiEnqueueBatch(c echo.Context) error {
	var req struct {
		Jobs []enqueueRequest `json:"jobs"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := domain.ValidateBatch("jobs", len(req.Jobs), domain.MaxBatchJobs); err != nil {
		return err
	}
	return answerBatch(c, req.Jobs, enqueueRequest.job, func(jobs []domain.NewJob) ([]domain.Result[domain.Enqueued], error) {
		return s.Queues.EnqueueBatch(c.Request().Context(), pathParam(c, "queue"), jobs)
	})
}

// apiPollBatch: {"count": 1..domain.MaxBatchPoll, "lease_ms"}: the jobs leased, each with
// its own token; fewer (maybe none) when fewer are due.
func (s *server) apiPollBatch(c echo.Context) error {
	var req struct {
		Count    json.RawMessage `json:"count"`
		LeaseMs  json.RawMessage `json:"lease_ms"`
		Consumer *string         `json:"consumer"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Count == nil || req.LeaseMs == nil {
		return domain.Errorf(domain.EINVALID, "count (1 to %d) and lease_ms (%d to %d) are required", domain.MaxBatchPoll, domain.MinLease.Milliseconds(), domain.MaxLease.Milliseconds())
	}
	n, err := batchCountInput.json(req.Count)
	if err != nil {
		return err
	}
	lease, err := leaseInput.millis(req.LeaseMs)
	if err != nil {
		return err
	}
	consumer, err := pollConsumer(c, req.Consumer)
	if err != nil {
		return err
	}
	ds, err := s.Queues.PollBatch(c.Request().Context(), pathParam(c, "queue"), int(n), lease, consumer)
	if err != nil {
		return err
	}
	if len(ds) == 0 {
		unchanged(c)
	}
	if ds == nil {
		ds = []domain.Delivery{}
	}
	return c.JSON(http.StatusOK, map[string]any{"jobs": ds})
}

// apiAckBatch: {"acks": [{"id", "token"}, ...]}, up to domain.MaxBatchAcks; each result is
// {"id", "acked": true} or the item's error.
func (s *server) apiAckBatch(c echo.Context) error {
	var req struct {
		Acks []domain.AckItem `json:"acks"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := domain.ValidateBatch("acks", len(req.Acks), domain.MaxBatchAcks); err != nil {
		return err
	}
	errs, err := s.Queues.AckBatch(c.Request().Context(), pathParam(c, "queue"), req.Acks)
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
