package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

// errorStatus maps each domain error code to its HTTP status; the one table of its kind.
var errorStatus = map[string]int{
	domain.EINVALID:      http.StatusBadRequest,
	domain.EUNAUTHORIZED: http.StatusUnauthorized,
	domain.ENOTFOUND:     http.StatusNotFound,
	domain.ECONFLICT:     http.StatusConflict,
	domain.ERATELIMITED:  http.StatusTooManyRequests,
	domain.EUNAVAILABLE:  http.StatusServiceUnavailable,
	domain.EUNKNOWN:      http.StatusServiceUnavailable,
	domain.EINTERNAL:     http.StatusInternalServerError,
}

// unknownOutcome is what a form says when Redis did not answer a write (domain.EUNKNOWN):
// unlike EUNAVAILABLE ("nothing was changed"), the change may have been applied.
const unknownOutcome = "Redis did not answer in time, so this may or may not have been applied. Reload the page to see whether it was before trying again."

// Codes for errors raised by the HTTP layer itself rather than the domain.
const (
	codeForbidden        = "forbidden"
	codeMethodNotAllowed = "method_not_allowed"
	codeUnsupportedType  = "unsupported_media_type"
	codeTooLarge         = "too_large"
)

type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// describe turns any handler error into a status, a code and a message fit to show.
func describe(err error) (status int, code, message string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		message = fmt.Sprint(he.Message)
		switch he.Code {
		case http.StatusBadRequest:
			return he.Code, domain.EINVALID, message
		case http.StatusUnauthorized:
			return he.Code, domain.EUNAUTHORIZED, message
		case http.StatusForbidden:
			return he.Code, codeForbidden, message + ": reload the page and try again"
		case http.StatusNotFound:
			return he.Code, domain.ENOTFOUND, "no such page or API call"
		case http.StatusMethodNotAllowed:
			return he.Code, codeMethodNotAllowed, message
		case http.StatusRequestEntityTooLarge:
			return he.Code, codeTooLarge, "the request body is larger than the limit of " + maxBodyBytes + "B"
		case http.StatusUnsupportedMediaType:
			return he.Code, codeUnsupportedType, message
		case http.StatusServiceUnavailable:
			return he.Code, domain.EUNAVAILABLE, message
		default:
			return he.Code, domain.EINTERNAL, http.StatusText(he.Code)
		}
	}
	code = domain.ErrorCode(err)
	status, ok := errorStatus[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return status, code, domain.ErrorMessage(err)
}

// handleError answers every error a handler returns: JSON under /api, a page elsewhere.
func (s *server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, message := describe(err)
	if status >= http.StatusInternalServerError && code != domain.EUNAVAILABLE && code != domain.EUNKNOWN {
		s.Log.Error("request failed", "err", err, "uri", c.Request().RequestURI,
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
	}
	if status == http.StatusUnauthorized && strings.HasPrefix(c.Path(), "/api/") {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="zpulse"`)
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		var body apiError
		body.Error.Code, body.Error.Message = code, message
		err = c.JSON(status, body)
	} else if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = s.render(c, status, views.ErrorPage(s.chrome(c, http.StatusText(status)), status, message))
	}
	if err != nil {
		s.Log.Error("cannot write the error response", "err", err)
	}
}
