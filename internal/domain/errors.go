package domain

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one HTTP status in internal/web (errorStatuses in its errors.go).
const (
	EINVALID      = "invalid"      // the input breaks a documented rule; the message says which
	ENOTFOUND     = "not_found"    // the thing asked for does not exist
	ECONFLICT     = "conflict"     // the request clashes with the current state
	EUNAUTHORIZED = "unauthorized" // a credential is needed and was missing, wrong, revoked or expired
	EFORBIDDEN    = "forbidden"    // the credential is right, but its role may not do this
	ERATELIMITED  = "rate_limited" // the caller is over its limit
	EUNAVAILABLE  = "unavailable"  // Redis refused or was not reached: nothing changed
	EINTERNAL     = "internal"     // a bug or an unexpected failure
	// EUNKNOWN says a write was sent but its answer did not come back (a timeout, or a
	// connection cut after sending): Redis may or may not have applied it, so a blind retry
	// could apply it twice. Look before retrying.
	EUNKNOWN = "unknown_outcome"
	// CodeWrongType says a key at one of zpulse's names holds another Redis type than the one
	// the call works on (another service's LIST at queue:rq): nothing was read or changed.
	CodeWrongType = "wrong_type"
)

// Error is an application error with a machine-readable code and a message for people.
// Field names the input the error is about as the API spells it ("points", "window_ms"), ""
// when it is about the request as a whole: a form puts the message beside that field, the
// API's error envelope carries it.
type Error struct {
	Code    string
	Message string
	Field   string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an *Error about one input field, with the given code and a formatted
// message.
func FieldErrorf(field, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Field: field}
}

// ErrorField returns the field of the first *Error in err's chain, or "".
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for any other
// error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the message of the first *Error in err's chain, or a generic message
// that hides internal details.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return "internal error"
	}
}
