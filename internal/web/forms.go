package web

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// formAction does what a page's form asks about the thing named (a board, a queue). It fills
// the form's field errors for bad input, or returns the success message, or an error and the
// field it concerns ("" for the whole form) unless the error names one of the form's fields
// itself (domain.Error.Field).
type formAction func(ctx context.Context, name string, f views.Form) (done, field string, err error)

// pageForms is how one kind of page shows its forms.
type pageForms struct {
	param     string   // the path parameter naming the thing, also its kind: "board", "queue"
	wholePage []string // forms whose success changes more than their section: the page reloads
	back      func(c echo.Context, name string) string
	page      func(c echo.Context, status int, name string, forms map[string]views.Form) error
	section   func(c echo.Context, status int, name, id string, f views.Form) error
}

// handleForm handles a page's form: with htmx the answer is the form's section; without
// JavaScript a success redirects back to the page (the message travels in a flash) and a
// failure is the page with the form's errors. Bad input is a 400 and writes nothing; a
// conflict is a 409, Redis down a 503, each with the reason in the form.
func (s *server) handleForm(p pageForms, id string, fields []string, act formAction) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := httpio.PathParam(c, p.param)
		if err := domain.ValidateKeyName(p.param, name); err != nil {
			return err
		}
		f := views.NewForm()
		values, _ := c.FormParams()
		for _, field := range fields {
			f.Values[field] = strings.TrimSpace(strings.Join(values[field], ","))
		}
		status := http.StatusOK
		done, field, err := act(c.Request().Context(), name, f)
		switch {
		case !f.OK():
			status = http.StatusBadRequest
		case err != nil:
			var message string
			var shown bool
			if status, message, shown = httpio.FormFailure(err, "nothing was changed"); !shown {
				return err
			}
			if code := domain.ErrorCode(err); code == domain.EUNAVAILABLE || code == domain.EUNKNOWN {
				field = "" // about the whole form, not the field
			} else {
				field = fieldOf(err, fields, nil, field)
			}
			f.Errors[field] = message
		default:
			httpio.AuditDetail(c, "%s", done)
			if !isHTMX(c) || slices.Contains(p.wholePage, id) {
				setFlash(c, id, done)
				back := p.back(c, name)
				if isHTMX(c) {
					c.Response().Header().Set("HX-Redirect", urlFor(c, back))
					return c.NoContent(http.StatusOK)
				}
				return seeOther(c, back)
			}
			f = views.NewForm()
			f.Success = done
		}
		if !isHTMX(c) {
			return p.page(c, status, name, map[string]views.Form{id: f})
		}
		return p.section(c, status, name, id, f)
	}
}

// fieldOf is the form field err is about: the field it names (domain.Error.Field; renamed
// where the form calls it otherwise) when the form shows errors beside that field, otherwise
// fallback.
func fieldOf(err error, shown []string, renamed map[string]string, fallback string) string {
	field := domain.ErrorField(err)
	if to, ok := renamed[field]; ok {
		field = to
	}
	if field != "" && slices.Contains(shown, field) {
		return field
	}
	return fallback
}

// noteError puts err's message beside its field in a form's errors (above the form when it
// names none) and reports whether there was no error.
func noteError(errs map[string]string, err error) bool {
	if err == nil {
		return true
	}
	errs[domain.ErrorField(err)] = domain.ErrorMessage(err)
	return false
}
