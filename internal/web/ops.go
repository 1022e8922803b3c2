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

// readyz answers 503 while Redis does not answer a PING within a second. It asks Redis on
// every call (no cached status), and the client enforces the deadline
// (ContextTimeoutEnabled), so a stalled Redis is reported within about a second.
func (s *server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), time.Second)
	defer cancel()
	if err := s.Ping(ctx); err != nil {
		var body httpio.APIError
		body.Error.Code, body.Error.Message = domain.EUNAVAILABLE, "Redis does not answer: "+err.Error()
		return c.JSON(httpio.StatusOf(domain.EUNAVAILABLE), body)
	}
	body := map[string]string{"status": "ready"}
	if mode := s.liveMode(); mode != "" {
		body["live"] = mode
	}
	return c.JSON(http.StatusOK, body)
}
