package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

func (h *Handlers) ListQueues(c echo.Context) error {
	queues, err := h.Queues.Summaries(c.Request().Context())
	if err != nil {
		return err
	}
	if queues == nil {
		queues = []domain.QueueSummary{}
	}
	return c.JSON(http.StatusOK, map[string]any{"queues": queues})
}

func (h *Handlers) QueueStats(c echo.Context) error {
	st, err := h.Queues.Stats(c.Request().Context(), httpio.PathParam(c, "queue"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

// PutQueueSettings saves a queue's settings. Fields left out keep their current values.
func (h *Handlers) PutQueueSettings(c echo.Context) error {
	ctx, queue := c.Request().Context(), httpio.PathParam(c, "queue")
	var req struct {
		Kind        *domain.QueueKind `json:"kind"`
		MaxAttempts json.RawMessage   `json:"max_attempts"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	patch := domain.QueueSettingsPatch{Kind: req.Kind}
	if req.MaxAttempts != nil {
		n, err := httpio.MaxAttemptsInput.JSON(req.MaxAttempts)
		if err != nil {
			return err
		}
		patch.MaxAttempts = new(int(n))
	}
	set, err := h.Queues.PatchSettings(ctx, queue, patch)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, set)
}

type enqueueRequest struct {
	ID       *string         `json:"id"`
	Priority json.RawMessage `json:"priority"`
	RunAt    *string         `json:"run_at"`
	DelayMs  json.RawMessage `json:"delay_ms"`
	Payload  json.RawMessage `json:"payload"`
	Type     *string         `json:"type"`
}

func (h *Handlers) Enqueue(c echo.Context) error {
	var req enqueueRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	job, err := req.job()
	if err != nil {
		return err
	}
	e, err := h.Queues.Enqueue(c.Request().Context(), httpio.PathParam(c, "queue"), job)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, e)
}

func (h *Handlers) Poll(c echo.Context) error {
	var req struct {
		LeaseMs  json.RawMessage `json:"lease_ms"`
		WaitMs   json.RawMessage `json:"wait_ms"`
		Consumer *string         `json:"consumer"`
	}
	if err := httpio.DecodeOptionalJSON(c, &req); err != nil { // no body is a plain poll
		return err
	}
	var (
		opt domain.PollOptions
		err error
	)
	if req.LeaseMs != nil {
		if opt.Lease, err = httpio.LeaseInput.Millis(req.LeaseMs); err != nil {
			return err
		}
	}
	if req.WaitMs != nil {
		if opt.Wait, err = httpio.TakeWaitInput.Millis(req.WaitMs); err != nil {
			return err
		}
	}
	if opt.Consumer, err = pollConsumer(c, req.Consumer); err != nil {
		return err
	}
	d, ok, err := h.Queues.Poll(c.Request().Context(), httpio.PathParam(c, "queue"), opt)
	if err != nil {
		return err
	}
	if !ok {
		httpio.MarkUnchanged(c)
		return c.NoContent(http.StatusNoContent)
	}
	return c.JSON(http.StatusOK, d)
}

// Ack completes a leased job: {"token": the poll's token}.
func (h *Handlers) Ack(c echo.Context) error {
	var req struct {
		Token string `json:"token"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if err := h.Queues.Ack(c.Request().Context(), httpio.PathParam(c, "queue"), httpio.PathParam(c, "id"), req.Token); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// Extend is a worker's heartbeat: {"token", "lease_ms"}; the lease then ends lease_ms
// from now.
func (h *Handlers) Extend(c echo.Context) error {
	var req struct {
		Token   string          `json:"token"`
		LeaseMs json.RawMessage `json:"lease_ms"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.LeaseMs == nil {
		return domain.Errorf(domain.EINVALID, "lease_ms is required: the lease's new length from now, %d to %d ms", domain.MinLease.Milliseconds(), domain.MaxLease.Milliseconds())
	}
	lease, err := httpio.LeaseInput.Millis(req.LeaseMs)
	if err != nil {
		return err
	}
	queue, id := httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")
	deadline, err := h.Queues.Extend(c.Request().Context(), queue, id, req.Token, lease)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": id, "queue": queue, "lease_deadline": deadline})
}

// Nack gives a leased job back: {"token", "delay_ms"?, "error"?}.
func (h *Handlers) Nack(c echo.Context) error {
	var req struct {
		Token   string          `json:"token"`
		DelayMs json.RawMessage `json:"delay_ms"`
		Error   string          `json:"error"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	var delay time.Duration
	if req.DelayMs != nil {
		var err error
		if delay, err = httpio.DelayInput.Millis(req.DelayMs); err != nil {
			return err
		}
	}
	queue, id := httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")
	where, err := h.Queues.Nack(c.Request().Context(), queue, id, req.Token, delay, req.Error)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": id, "queue": queue, "state": where})
}

func (h *Handlers) DeleteJob(c echo.Context) error {
	if _, err := h.Queues.Delete(c.Request().Context(), httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) Requeue(c echo.Context) error {
	if err := h.Queues.Requeue(c.Request().Context(), httpio.PathParam(c, "queue"), httpio.PathParam(c, "id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// job reads an enqueue request as the job to enqueue. Returns EINVALID.
func (req enqueueRequest) job() (domain.NewJob, error) {
	var job domain.NewJob
	if req.ID != nil {
		if *req.ID == "" {
			return job, domain.Errorf(domain.EINVALID, "id must be 1 to %d bytes of printable UTF-8, or left out for a generated id", domain.MaxMemberBytes)
		}
		job.ID = *req.ID
	}
	if req.Type != nil {
		if err := domain.ValidateJobType("type", *req.Type); err != nil {
			return job, err
		}
		job.Type = *req.Type
	}
	var err error
	if job.Priority, job.HasPriority, err = decodePriority(req.Priority); err != nil {
		return job, err
	}
	if job.RunAt, err = decodeRunAt(req.RunAt); err != nil {
		return job, err
	}
	if req.DelayMs != nil {
		d, err := httpio.DelayInput.Millis(req.DelayMs)
		if err != nil {
			return job, err
		}
		job.Delay = d
	}
	if len(req.Payload) > 0 && string(req.Payload) != "null" {
		job.Payload = req.Payload
	}
	if err := job.FirstProblem(); err != nil {
		return job, err
	}
	return job, nil
}

// decodePriority reads an optional "priority": any whole number (the range is the domain's to
// say); has is false when it was left out.
func decodePriority(raw json.RawMessage) (p int, has bool, err error) {
	if raw == nil {
		return 0, false, nil
	}
	n, err := httpio.PriorityInput.JSON(raw)
	return int(n), err == nil, err
}

// decodeRunAt reads an optional "run_at" (RFC 3339); the zero time when it was left out.
func decodeRunAt(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	return httpio.RunAtInput.Parse(*s)
}
