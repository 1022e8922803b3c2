package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/views"
)

func (s *server) sourcesPage(c echo.Context) error {
	return s.sourcesPageWith(c, http.StatusOK, views.Form{})
}

func (s *server) sourcesPageWith(c echo.Context, status int, f views.Form) error {
	all, err := s.Sources.Sources(c.Request().Context())
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	ch := unavailable(s.chrome(c, "Adopted sources"), err)
	return s.render(c, status, views.SourcesPage(ch, all, f))
}

// sourceFormFields are the fields of the form on /sources that show their errors (kind is
// a select).
var sourceFormFields = []string{"name", "key", "encoding", "limit", "window"}

// saveSourceForm adopts a source from the form on /sources.
func (s *server) saveSourceForm(c echo.Context) error {
	f := views.Form{Values: map[string]string{}, Errors: map[string]string{}}
	for _, k := range append([]string{"kind"}, sourceFormFields...) {
		f.Values[k] = strings.TrimSpace(c.FormValue(k))
	}
	src := domain.Source{Name: f.Values["name"], Kind: domain.SourceKind(f.Values["kind"]), Key: f.Values["key"], Encoding: f.Values["encoding"]}
	if src.Kind == domain.SourceLimiter {
		n, err := limitInput.parse(f.Values["limit"])
		noteError(f.Errors, err)
		src.Limit = n
		window, err := windowInput.text(f.Values["window"])
		noteError(f.Errors, err)
		src.WindowMs = window.Milliseconds()
	}
	if len(f.Errors) > 0 {
		return s.sourcesPageWith(c, http.StatusBadRequest, f)
	}
	if _, err := s.Sources.SaveSource(c.Request().Context(), src); err != nil {
		status, msg, shown := formFailure(err, "the source was not saved")
		if !shown {
			return err
		}
		f.Errors[fieldOf(err, sourceFormFields, map[string]string{"window_ms": "window"}, "")] = msg
		return s.sourcesPageWith(c, status, f)
	}
	return seeOther(c, "/sources/"+src.Name)
}

func (s *server) deleteSourceForm(c echo.Context) error {
	if err := s.Sources.DeleteSource(c.Request().Context(), pathParam(c, "source")); err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	return seeOther(c, "/sources")
}

func (s *server) sourcePage(c echo.Context) error {
	return s.sourcePageWith(c, http.StatusOK, views.TryForm{Errors: map[string]string{}})
}

func (s *server) sourcePageWith(c echo.Context, status int, try views.TryForm) error {
	name := pathParam(c, "source")
	v, err := s.Sources.SourceView(c.Request().Context(), name)
	if err != nil {
		return err
	}
	return s.render(c, status, views.SourcePage(s.chrome(c, "Source "+name, panels.Source.Topic(name)), s.audience(c).Source(v), try))
}

// trySourceForm counts requests against an adopted limiter's own keys.
func (s *server) trySourceForm(c echo.Context) error {
	try := views.TryForm{Client: strings.TrimSpace(c.FormValue("client")), N: "1", Errors: map[string]string{}}
	res, err := s.Sources.TrySource(c.Request().Context(), pathParam(c, "source"), try.Client)
	if err != nil {
		status, msg, shown := formFailure(err, "nothing was counted")
		if !shown {
			return err
		}
		try.Errors["client"] = msg
		return s.sourcePageWith(c, status, try)
	}
	try.Results = []domain.LimitResult{res}
	return s.sourcePageWith(c, http.StatusOK, try)
}
