package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/web/httpio"
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
	found, _ := s.Sources.SourceSuggestions(c.Request().Context()) // none while Redis is away
	return s.render(c, status, views.SourcesPage(ch, all, domain.SourceOverlaps(all), f, found))
}

// sourceFormFields are the fields of the form on /sources that show their errors (kind is
// a select).
var sourceFormFields = []string{"name", "key", "encoding", "limit", "window", "zone", "max_ts", "tokens_field", "time_field", "time_unit", "rate_per_s", "sort_order"}

// saveSourceForm adopts a source from the form on /sources.
func (s *server) saveSourceForm(c echo.Context) error {
	f := views.Form{Values: map[string]string{}, Errors: map[string]string{}}
	for _, k := range append([]string{"kind"}, sourceFormFields...) {
		f.Values[k] = strings.TrimSpace(c.FormValue(k))
	}
	src := domain.Source{Name: f.Values["name"], Kind: domain.SourceKind(f.Values["kind"]), Key: f.Values["key"]}
	v := f.Values
	in := httpio.SourceInputs{Encoding: v["encoding"], Zone: v["zone"], TokensField: v["tokens_field"], TimeField: v["time_field"], TimeUnit: v["time_unit"],
		Limit: v["limit"], Window: v["window"], MaxTS: v["max_ts"], RatePerS: v["rate_per_s"], SortOrder: v["sort_order"]}
	for _, err := range in.Fill(&src) {
		noteError(f.Errors, err)
	}
	if len(f.Errors) > 0 {
		return s.sourcesPageWith(c, http.StatusBadRequest, f)
	}
	if _, err := s.Sources.SaveSource(c.Request().Context(), src); err != nil {
		status, msg, shown := httpio.FormFailure(err, "the source was not saved")
		if !shown {
			return err
		}
		f.Errors[fieldOf(err, sourceFormFields, map[string]string{"window_ms": "window"}, "")] = msg
		return s.sourcesPageWith(c, status, f)
	}
	return seeOther(c, "/sources/"+src.Name)
}

func (s *server) deleteSourceForm(c echo.Context) error {
	if err := s.Sources.DeleteSource(c.Request().Context(), httpio.PathParam(c, "source")); err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	return seeOther(c, "/sources")
}

func (s *server) sourcePage(c echo.Context) error {
	return s.sourcePageWith(c, http.StatusOK, views.TryForm{Errors: map[string]string{}})
}

func (s *server) sourcePageWith(c echo.Context, status int, try views.TryForm) error {
	name := httpio.PathParam(c, "source")
	v, err := s.Sources.SourceView(c.Request().Context(), name)
	if err != nil {
		return err
	}
	return s.render(c, status, views.SourcePage(s.chrome(c, "Source "+name, panels.Source.Topic(name)), s.audience(c).Source(v), try, s.sourceLookup(c, v)))
}

// trySourceForm counts requests against an adopted limiter's own keys.
func (s *server) trySourceForm(c echo.Context) error {
	try := views.TryForm{Client: strings.TrimSpace(c.FormValue("client")), N: "1", Errors: map[string]string{}}
	res, err := s.Sources.TrySource(c.Request().Context(), httpio.PathParam(c, "source"), try.Client)
	if err != nil {
		status, msg, shown := httpio.FormFailure(err, "nothing was counted")
		if !shown {
			return err
		}
		try.Errors["client"] = msg
		return s.sourcePageWith(c, status, try)
	}
	try.Results = []domain.LimitResult{res}
	return s.sourcePageWith(c, http.StatusOK, try)
}
