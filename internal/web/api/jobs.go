package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The API of what operators do with jobs: one job, lists by state, dead letters in bulk,
// pause and resume.

func (h *Handlers) Job(c echo.Context) error {
	j, err := h.Queues.Job(c.Request().Context(), httpio.PathParam(c, "queue"), httpio.PathParam(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.Audience(c).Job(j))
}

func (h *Handlers) Jobs(c echo.Context) error {
	if httpio.Searching(c) {
		return h.searchJobs(c)
	}
	opt, err := httpio.JobListOptions(c)
	if err != nil {
		return err
	}
	page, err := h.Queues.Jobs(c.Request().Context(), httpio.PathParam(c, "queue"), opt)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

// DeadErrors answers the latest dead jobs grouped by their last error, the largest group first.
func (h *Handlers) DeadErrors(c echo.Context) error {
	g, err := h.Queues.DeadErrors(c.Request().Context(), httpio.PathParam(c, "queue"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, g)
}

func (h *Handlers) RequeueDead(c echo.Context) error {
	res, err := h.Queues.RequeueDead(c.Request().Context(), httpio.PathParam(c, "queue"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *Handlers) DeleteDead(c echo.Context) error {
	res, err := h.Queues.DeleteDead(c.Request().Context(), httpio.PathParam(c, "queue"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// Pause answers {"queue", "paused"}; pausing a paused queue (or resuming a running one)
// is not an error.
func (h *Handlers) Pause(paused bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		queue := httpio.PathParam(c, "queue")
		if err := h.Queues.SetPaused(c.Request().Context(), queue, paused); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"queue": queue, "paused": paused})
	}
}
