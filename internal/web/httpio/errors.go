package httpio

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// MaxBodyBytes bounds every request body; the largest legitimate one is a job payload (64 KiB).
const MaxBodyBytes = "1M"

// Codes for errors raised by the HTTP layer itself rather than the domain.
const (
	codeForbidden        = domain.EFORBIDDEN
	codeMethodNotAllowed = "method_not_allowed"
	codeUnsupportedType  = "unsupported_media_type"
	codeTooLarge         = "too_large"
)

// errorStatuses is the one table between error codes and HTTP statuses, for the API's JSON
// errors, the error pages and the forms alike. form is the status of a form that shows the
// error beside its fields, 0 when the error is not a form's to show (the error page answers
// instead). A form answers ENOTFOUND with 400, as any input that names what is not there,
// and htmx swaps only 400, 409 and 503 answers into the page (views/layout.templ's
// htmx-config).
var errorStatuses = []struct {
	code         string
	status, form int
}{
	{domain.EINVALID, http.StatusBadRequest, http.StatusBadRequest},
	{domain.EUNAUTHORIZED, http.StatusUnauthorized, 0},
	{codeForbidden, http.StatusForbidden, 0},
	{domain.ENOTFOUND, http.StatusNotFound, http.StatusBadRequest},
	{codeMethodNotAllowed, http.StatusMethodNotAllowed, 0},
	{domain.ECONFLICT, http.StatusConflict, http.StatusConflict},
	{domain.CodeWrongType, http.StatusConflict, http.StatusConflict},
	{codeTooLarge, http.StatusRequestEntityTooLarge, 0},
	{codeUnsupportedType, http.StatusUnsupportedMediaType, 0},
	{domain.ERATELIMITED, http.StatusTooManyRequests, 0},
	{domain.EINTERNAL, http.StatusInternalServerError, 0},
	{domain.EUNAVAILABLE, http.StatusServiceUnavailable, http.StatusServiceUnavailable},
	{domain.EUNKNOWN, http.StatusServiceUnavailable, http.StatusServiceUnavailable}, // after EUNAVAILABLE: codeOf(503)
}

// unknownOutcome is what a form says when Redis did not answer a write (domain.EUNKNOWN):
// unlike EUNAVAILABLE ("nothing was changed"), the change may have been applied.
const unknownOutcome = "Redis did not answer in time, so this may or may not have been applied. Reload the page to see whether it was before trying again."

// StatusOf is the HTTP status of an error code; 500 for a code the table does not know.
func StatusOf(code string) int {
	for _, row := range errorStatuses {
		if row.code == code {
			return row.status
		}
	}
	return http.StatusInternalServerError
}

// codeOf is the error code of an HTTP status; EINTERNAL for a status the table does not know.
func codeOf(status int) string {
	for _, row := range errorStatuses {
		if row.status == status {
			return row.code
		}
	}
	return domain.EINTERNAL
}

// FormFailure is how a form answers the error of its call: the status, and the message to
// show above or beside its fields; shown is false when the error is not the form's to show
// and the handler returns it. notDone says what did not happen when Redis is down ("nothing
// was changed").
func FormFailure(err error, notDone string) (status int, message string, shown bool) {
	code := domain.ErrorCode(err)
	for _, row := range errorStatuses {
		if row.code == code && row.form != 0 {
			switch code {
			case domain.EUNAVAILABLE:
				return row.form, "Redis is unavailable, so " + notDone + ". Try again when the banner is gone.", true
			case domain.EUNKNOWN:
				return row.form, unknownOutcome, true
			}
			return row.form, domain.ErrorMessage(err), true
		}
	}
	return http.StatusInternalServerError, "", false
}

// APIError is the API's error envelope: {"error": {"code", "message", "field"?}}.
type APIError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field,omitempty"` // the input it is about (domain.Error.Field)
	} `json:"error"`
}

// APIErrorOf is the API's error envelope for err, and its status.
func APIErrorOf(err error) (int, APIError) {
	status, code, message := DescribeError(err)
	var body APIError
	body.Error.Code, body.Error.Message, body.Error.Field = code, message, domain.ErrorField(err)
	return status, body
}

// DescribeError turns any handler error into a status, a code and a message fit to show.
func DescribeError(err error) (status int, code, message string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code, message = codeOf(he.Code), fmt.Sprint(he.Message)
		switch code {
		case domain.ENOTFOUND:
			message = "no such page or API call"
		case codeTooLarge:
			message = "the request body is larger than the limit of " + MaxBodyBytes + "B"
		case domain.EINTERNAL:
			message = http.StatusText(he.Code)
		}
		return he.Code, code, message
	}
	code = domain.ErrorCode(err)
	return StatusOf(code), code, domain.ErrorMessage(err)
}
