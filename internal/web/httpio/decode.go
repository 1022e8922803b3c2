package httpio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// PathParam returns a path parameter decoded. echo matches on the raw path when the request
// escaped a character such as "/" (%2F), and then hands the parameter over still escaped.
func PathParam(c echo.Context, name string) string {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// SeasonParam is the season number of the path.
func SeasonParam(c echo.Context) (int64, error) { return SeasonInput.Parse(PathParam(c, "season")) }

// DecodeJSON reads the body, one JSON object, into v (see decodeBody).
func DecodeJSON(c echo.Context, v any) error { return decodeBody(c, v, false) }

// DecodeOptionalJSON is DecodeJSON for the calls whose body may be left out: an empty body
// leaves v as it is.
func DecodeOptionalJSON(c echo.Context, v any) error { return decodeBody(c, v, true) }

// decodeBody is the one JSON decoder of the API: one object, unknown fields and trailing
// data refused, and every failure an EINVALID that says what is allowed. The body must be
// UTF-8 without lone surrogate escapes (encoding/json would store U+FFFD in their place) and
// name each member of an object once (encoding/json would keep the last): both are checked
// by jsontext, encoding/json v2's syntax layer, which refuses them by default.
func decodeBody(c echo.Context, v any, optional bool) error {
	body, err := io.ReadAll(c.Request().Body)
	if err == nil {
		err = decodeStrict(body, v)
	}
	var (
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
		maxBytes  *http.MaxBytesError
		strict    *jsontext.SyntacticError
		httpError *echo.HTTPError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &maxBytes):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge)
	case errors.As(err, &httpError):
		return err // the body limit, as echo's BodyLimit says it
	case errors.Is(err, io.EOF) && optional:
		return nil
	case errors.Is(err, io.EOF):
		return domain.Errorf(domain.EINVALID, "the body is empty: send a JSON object")
	case errors.Is(err, errNull):
		return domain.Errorf(domain.EINVALID, "the body is null: send a JSON object (or, where the body is optional, nothing)")
	case errors.Is(err, errNotUTF8):
		// Name the member whose text it is, when jsontext can say where.
		if serr := jsontext.NewDecoder(bytes.NewReader(body)).SkipValue(); errors.As(serr, &strict) && strict.JSONPointer != "" {
			at := string(strict.JSONPointer)
			field, _, _ := strings.Cut(strings.TrimPrefix(at, "/"), "/")
			return domain.FieldErrorf(field, domain.EINVALID, "%q is not valid UTF-8: send JSON text encoded in UTF-8", clipped(at))
		}
		return domain.Errorf(domain.EINVALID, "the body is not valid UTF-8: send JSON text encoded in UTF-8")
	case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &strict):
		return domain.Errorf(domain.EINVALID, "the body names %q twice: send each field once", clipped(string(strict.JSONPointer)))
	case errors.As(err, &strict):
		return domain.Errorf(domain.EINVALID, "the body has a string that is not valid Unicode at %q (such as a lone surrogate escape \\ud800): send valid UTF-8",
			clipped(string(strict.JSONPointer)))
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return domain.Errorf(domain.EINVALID, "the body is not valid JSON: send one JSON object")
	case errors.As(err, &typeError):
		if typeError.Field == "" {
			return domain.Errorf(domain.EINVALID, "the body must be a JSON object")
		}
		return domain.FieldErrorf(typeError.Field, domain.EINVALID, "field %q must be a JSON %s", typeError.Field, jsonKind(typeError.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return domain.Errorf(domain.EINVALID, "%s is not allowed here", strings.TrimPrefix(err.Error(), "json: "))
	default:
		return domain.Errorf(domain.EINVALID, "the body must be exactly one JSON object")
	}
}

var (
	errNotUTF8 = errors.New("not UTF-8")
	errNull    = errors.New("null")
)

// decodeStrict decodes body, one JSON value and nothing after it, into v; then refuses
// invalid UTF-8 and repeated member names, which encoding/json lets through. A null body is
// refused first: encoding/json would accept it and leave v as it was.
func decodeStrict(body []byte, v any) error {
	if string(bytes.TrimSpace(body)) == "null" {
		return errNull // encoding/json leaves v as it was: the call would go on as if sent {}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	if !utf8.Valid(body) {
		return errNotUTF8
	}
	return jsontext.NewDecoder(bytes.NewReader(body)).SkipValue()
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

// SingleQueryValues refuses a query that gives a parameter more than once: the API would
// read one of them (echo's QueryParam takes the first) and ignore the rest, so
// "?limit=5&limit=500" would mean whatever the reader guessed. Every API call is checked once,
// before its handler. Returns EINVALID naming the parameter.
func SingleQueryValues(c echo.Context) error {
	for name, vals := range c.QueryParams() {
		if len(vals) > 1 {
			return domain.FieldErrorf(name, domain.EINVALID, "query parameter %q is given %d times: give it once", clipped(name), len(vals))
		}
	}
	return nil
}
