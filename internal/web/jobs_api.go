package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The API of what operators do with jobs: one job, lists by state, dead letters in bulk,
// pause and resume.

func (s *server) apiJob(c echo.Context) error {
	j, err := s.Queues.Job(c.Request().Context(), pathParam(c, "queue"), pathParam(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.audience(c).Job(j))
}

// jobListOptions reads ?state=&limit=&cursor= (state defaults to waiting), validated.
func jobListOptions(c echo.Context) (domain.JobListOptions, error) {
	opt, err := jobListQuery(c)
	if err != nil {
		return opt, err
	}
	return opt, opt.Validate()
}

// jobListQuery reads ?state=&limit=&cursor= as they are. A prefix filter is refused with the
// way to search instead (domain.JobPrefixNote).
func jobListQuery(c echo.Context) (domain.JobListOptions, error) {
	if _, asked := c.QueryParams()["prefix"]; asked {
		return domain.JobListOptions{}, domain.Errorf(domain.EINVALID, "%s", domain.JobPrefixNote)
	}
	state := domain.JobWaiting
	if v := c.QueryParam("state"); v != "" {
		var err error
		if state, err = domain.ParseJobState(v); err != nil {
			return domain.JobListOptions{}, err
		}
	}
	limit, err := jobPageInput.query(c, domain.DefaultJobPage)
	if err != nil {
		return domain.JobListOptions{}, err
	}
	return domain.JobListOptions{State: state, Limit: limit, Cursor: c.QueryParam("cursor")}, nil
}

func (s *server) apiJobs(c echo.Context) error {
	if searching(c) {
		return s.apiSearchJobs(c)
	}
	opt, err := jobListOptions(c)
	if err != nil {
		return err
	}
	page, err := s.Queues.Jobs(c.Request().Context(), pathParam(c, "queue"), opt)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

func (s *server) apiRequeueDead(c echo.Context) error {
	res, err := s.Queues.RequeueDead(c.Request().Context(), pathParam(c, "queue"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) apiDeleteDead(c echo.Context) error {
	res, err := s.Queues.DeleteDead(c.Request().Context(), pathParam(c, "queue"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// apiPause answers {"queue", "paused"}; pausing a paused queue (or resuming a running one)
// is not an error.
func (s *server) apiPause(paused bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		queue := pathParam(c, "queue")
		if err := s.Queues.SetPaused(c.Request().Context(), queue, paused); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"queue": queue, "paused": paused})
	}
}

func (s *server) apiDeleteLimiter(c echo.Context) error {
	if err := s.Limiters.DeletePolicy(c.Request().Context(), pathParam(c, "limiter")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
