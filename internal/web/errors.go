package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// handleError answers every error a handler returns: JSON under /api, a page elsewhere.
func (s *server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, message := httpio.DescribeError(err)
	if status >= http.StatusInternalServerError && code != domain.EUNAVAILABLE && code != domain.EUNKNOWN {
		s.Log.Error("request failed", "err", err, "uri", c.Request().RequestURI,
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
	}
	if status == http.StatusUnauthorized && strings.HasPrefix(c.Path(), "/api/") {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="zpulse"`)
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		_, body := httpio.APIErrorOf(err)
		err = c.JSON(status, body)
	} else {
		err = s.render(c, status, views.ErrorPage(s.chrome(c, http.StatusText(status)), status, message))
	}
	if err != nil {
		s.Log.Error("cannot write the error response", "err", err)
	}
}
