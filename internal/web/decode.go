package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

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

// decodeJSON reads the body, one JSON object, into v (see decodeBody).
func decodeJSON(c echo.Context, v any) error { return decodeBody(c, v, false) }

// decodeOptionalJSON is decodeJSON for the calls whose body may be left out: an empty body
// leaves v as it is.
func decodeOptionalJSON(c echo.Context, v any) error { return decodeBody(c, v, true) }

// decodeBody is the one JSON decoder of the API: one object, unknown fields and trailing
// data refused, and every failure an EINVALID that says what is allowed.
func decodeBody(c echo.Context, v any, optional bool) error {
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
	case errors.Is(err, io.EOF) && optional:
		return nil
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

// integerLiteral is a whole number as JSON writes it: no sign +, leading zero, fraction or
// exponent.
var integerLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// parseWhole is the one parser of whole numbers, for JSON values, forms and queries alike:
// an integer literal from lo to hi. Anything else (fractions, exponents, text, a number out
// of range) is refused, never rounded or clamped.
func parseWhole(lit string, lo, hi int64) (int64, bool) {
	n, err := strconv.ParseInt(lit, 10, 64)
	return n, err == nil && integerLiteral.MatchString(lit) && n >= lo && n <= hi
}

// decodeInt reads a required whole number from a field's raw JSON value, from lo to hi; unit
// says what it counts ("" when it is a plain number).
func decodeInt(raw json.RawMessage, field, unit string, lo, hi int64) (int64, error) {
	what := "a whole number"
	if unit != "" {
		what += " of " + unit
	}
	lit := strings.TrimSpace(string(raw))
	if lit == "" {
		return 0, domain.Errorf(domain.EINVALID, "%s is required: %s from %s to %s", field, what, domain.FormatCount(lo), domain.FormatCount(hi))
	}
	n, ok := parseWhole(lit, lo, hi)
	if !ok {
		return 0, domain.Errorf(domain.EINVALID, "%s must be %s from %s to %s: a JSON integer without fraction or exponent (got %s)",
			field, what, domain.FormatCount(lo), domain.FormatCount(hi), clipped(lit))
	}
	return n, nil
}

// decodeMillis reads a required duration from a field's raw JSON value: whole milliseconds
// from lo to hi.
func decodeMillis(raw json.RawMessage, field string, lo, hi time.Duration) (time.Duration, error) {
	ms, err := decodeInt(raw, field, "milliseconds", lo.Milliseconds(), hi.Milliseconds())
	return time.Duration(ms) * time.Millisecond, err
}

// parseDuration is the one parser of durations typed by people (forms): Go's notation
// ("30s", "1m30s", "500ms"), whole milliseconds from lo to hi.
func parseDuration(text string, lo, hi time.Duration) (time.Duration, bool) {
	d, err := time.ParseDuration(text)
	return d, err == nil && d%time.Millisecond == 0 && d >= lo && d <= hi
}

// queryInt reads an optional whole-number query parameter.
func queryInt(c echo.Context, name string, def int) (int, error) {
	s := c.QueryParam(name)
	if s == "" {
		return def, nil
	}
	n, ok := parseWhole(s, math.MinInt32, math.MaxInt32)
	if !ok {
		return 0, domain.Errorf(domain.EINVALID, "%s must be a whole number (got %q)", name, clipped(s))
	}
	return int(n), nil
}

func clipped(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%.40s…", s)
	}
	return s
}
