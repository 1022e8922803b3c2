package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

func (s *server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readiness is /readyz's body: the status ("ready", "degraded", "unavailable"), each master
// with up or down (and on a Cluster its slots), and, when not ready, why; a 503 carries the
// API's error envelope too.
type readiness struct {
	Status  string               `json:"status"`
	Live    string               `json:"live,omitempty"`
	Down    int                  `json:"masters_down"`
	Masters []domain.MasterState `json:"masters"`
	Detail  string               `json:"detail,omitempty"`
}

// readyz reports every master zpulse writes to, asked now within a second (no cached status;
// the client enforces the deadline, so a stalled Redis is reported within about a second):
// every master of a Cluster, the master Sentinel names, or the one server. It answers 503 when
// zpulse cannot serve (no master answers, or which master to ask is unknown), and 200 when
// ready or degraded: a Cluster with some masters down still serves every other slot, and a
// load balancer that took every instance out for it would turn a partial outage into a whole
// one (the body and the pages' banner say "degraded" and name the slots).
func (s *server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), time.Second)
	defer cancel()
	h := s.health(ctx)
	body := readiness{Status: h.Readiness(), Live: s.liveMode().String(), Down: h.Down(), Masters: h.Masters, Detail: h.Summary()}
	if body.Masters == nil {
		body.Masters = []domain.MasterState{}
	}
	if body.Status != domain.Unavailable {
		return c.JSON(http.StatusOK, body)
	}
	var envelope httpio.APIError
	envelope.Error.Code, envelope.Error.Message = domain.EUNAVAILABLE, "Redis does not answer: "+body.Detail
	return c.JSON(httpio.StatusOf(domain.EUNAVAILABLE), struct {
		httpio.APIError
		readiness
	}{envelope, body})
}

// health is Deps.Health, or without it a PING of the one server.
func (s *server) health(ctx context.Context) domain.RedisHealth {
	if s.Health != nil {
		return s.Health(ctx)
	}
	m := domain.MasterState{Addr: "redis", Up: true}
	if err := s.Ping(ctx); err != nil {
		m.Up, m.Error = false, domain.ErrorMessage(err)
	}
	return domain.RedisHealth{Topology: "single", Masters: []domain.MasterState{m}}
}
