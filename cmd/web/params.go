package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// pathParam returns a path parameter decoded. echo matches on the raw path when the request
// escaped a character such as "/" (%2F), and then hands the parameter over still escaped.
func pathParam(c echo.Context, name string) string {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// requireJSON refuses API bodies that are not application/json with a 415. A request with
// no body and no Content-Type has no media type to refuse: it goes to its handler, which
// takes it where the body is optional (a poll) and answers 400 where one is needed.
func requireJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodDelete {
			return next(c)
		}
		if r.ContentLength == 0 && r.Header.Get(echo.HeaderContentType) == "" {
			return next(c)
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
		if err != nil || mt != echo.MIMEApplicationJSON {
			return echo.NewHTTPError(http.StatusUnsupportedMediaType, "send the body as JSON with \"Content-Type: application/json\"")
		}
		return next(c)
	}
}

// decodeJSON reads one JSON object into v, refusing unknown fields and trailing data, and
// turns every failure into an EINVALID that says what is allowed.
func decodeJSON(c echo.Context, v any) error {
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("trailing data")
		}
	}
	var (
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
		maxBytes  *http.MaxBytesError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &maxBytes):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge)
	case errors.Is(err, io.EOF):
		return domain.Errorf(domain.EINVALID, "the body is empty: send a JSON object")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return domain.Errorf(domain.EINVALID, "the body is not valid JSON: send one JSON object")
	case errors.As(err, &typeError):
		if typeError.Field == "" {
			return domain.Errorf(domain.EINVALID, "the body must be a JSON object")
		}
		return domain.Errorf(domain.EINVALID, "field %q must be a JSON %s", typeError.Field, jsonKind(typeError.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return domain.Errorf(domain.EINVALID, "%s is not allowed here", strings.TrimPrefix(err.Error(), "json: "))
	default:
		return domain.Errorf(domain.EINVALID, "the body must be exactly one JSON object")
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "bool":
		return "boolean"
	default:
		return "number"
	}
}

var integerLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// jsonInt reads a whole number from a raw JSON value: a plain integer literal from min to max.
// Fractions, exponents, strings and numbers out of range are refused, never rounded.
func jsonInt(raw json.RawMessage, name string, min, max int64) (int64, error) {
	lit := strings.TrimSpace(string(raw))
	if lit == "" {
		return 0, domain.Errorf(domain.EINVALID, "%s is required: a whole number from %d to %d", name, min, max)
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if !integerLiteral.MatchString(lit) || err != nil || n < min || n > max {
		return 0, domain.Errorf(domain.EINVALID, "%s must be a JSON integer from %d to %d, without fraction or exponent (got %s)",
			name, min, max, clipped(lit))
	}
	return n, nil
}

// queryInt reads an optional whole-number query parameter.
func queryInt(c echo.Context, name string, def int) (int, error) {
	s := c.QueryParam(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, domain.Errorf(domain.EINVALID, "%s must be a whole number (got %q)", name, clipped(s))
	}
	return n, nil
}

func clipped(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%.40s…", s)
	}
	return s
}
