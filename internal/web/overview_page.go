package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// overviewPage shows every board, queue, limiter and lock on one screen, each panel live on its
// topic.
func (s *server) overviewPage(c echo.Context) error {
	ctx := c.Request().Context()
	var d views.OverviewData
	boards, err := s.Leaderboards.Summaries(ctx)
	d.Boards = boards
	if err == nil {
		d.Queues, err = s.Queues.Summaries(ctx)
	}
	if err == nil {
		d.Limiters, err = s.Limiters.Views(ctx)
	}
	if err == nil {
		d.Locks, err = s.Locks.List(ctx)
	}
	if err == nil {
		d.Demo, err = s.readDemoState(ctx)
	}
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	aud := s.audience(c)
	d.Limiters, d.Locks = aud.Limiters(d.Limiters), aud.Locks(d.Locks)
	d.Adopted = s.adoptedViews(c)
	ch := unavailable(s.chrome(c, "Overview", domain.TopicBoards, domain.TopicQueues, domain.TopicLimiters, domain.TopicLocks), err)
	return s.render(c, http.StatusOK, views.OverviewPage(ch, d))
}

// readDemoState is the demo switch as the overview shows it; nil when the demo does not run.
func (s *server) readDemoState(ctx context.Context) (*views.DemoState, error) {
	if s.Demo == nil {
		return nil, nil
	}
	paused, err := s.Demo.Paused(ctx)
	return &views.DemoState{Paused: paused}, err
}

// demoSwitch pauses or resumes the demo traffic (?paused=true|false in the form).
func (s *server) demoSwitch(c echo.Context) error {
	if s.Demo == nil {
		return domain.Errorf(domain.ENOTFOUND, "the demo does not run on this server: start it with --demo")
	}
	paused, err := httpio.PausedInput.Parse(c.FormValue("paused"))
	if err != nil {
		return err
	}
	if err := s.Demo.SetPaused(c.Request().Context(), paused); err != nil {
		return err
	}
	if !isHTMX(c) {
		return seeOther(c, "/")
	}
	return s.render(c, http.StatusOK, views.DemoSwitch(s.chrome(c, "Overview"), views.DemoState{Paused: paused}))
}
