package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// An adopted board is paged, ranked and searched as a zpulse board is: the page's "Browse
// all" and "Find a player" (the API's reads are in internal/web/api/sources.go).

// sourceLookup is the "Find a player" answer of an adopted board's page (nil without a
// ?player=, or for another kind).
func (s *server) sourceLookup(c echo.Context, v domain.SourceView) *views.Lookup {
	player := strings.TrimSpace(c.QueryParam("player"))
	if player == "" || v.Source.Kind != domain.SourceBoard {
		return nil
	}
	around, err := s.Sources.SourceAround(c.Request().Context(), v.Source.Name, player, lookupAround)
	return lookupOf(player, around, err)
}

// sourceEntriesPage browses an adopted board in rank order, a page at a time.
func (s *server) sourceEntriesPage(c echo.Context) error {
	name, ctx := httpio.PathParam(c, "source"), c.Request().Context()
	v, err := s.Sources.SourceView(ctx, name)
	if err != nil {
		return err
	}
	page, cursor, err := pageAtOrAfter(c, func(rank int64) (domain.Page, error) {
		return s.Sources.SourceEntriesAt(ctx, name, rank, entriesPerPage)
	}, func(cursor string) (domain.Page, error) {
		return s.Sources.SourceEntries(ctx, name, cursor, entriesPerPage)
	})
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	return s.render(c, http.StatusOK, views.SourceEntriesPage(unavailable(s.chrome(c, name), err), v, page, cursor))
}

// sourceExport streams an adopted board's current key in rank order: rank, player, points.
func (s *server) sourceExport(c echo.Context) error {
	name := httpio.PathParam(c, "source")
	if err := domain.ValidateName("source", name); err != nil {
		return err
	}
	return s.exportEntries(c, exportFileName(name, ".csv"), func(cursor string) (domain.Page, error) {
		return s.Sources.SourceEntries(c.Request().Context(), name, cursor, domain.MaxPageLimit)
	})
}

// adoptedViews reads the adopted sources of the given kinds (every kind without one) for the
// lists and the overview, which show them beside zpulse's own as another service's. One read
// round trip for all of them (Sources.SourceViews); when Redis cannot be read the lists say
// so themselves, and the adopted ones are left out.
func (s *server) adoptedViews(c echo.Context, kinds ...domain.SourceKind) []domain.SourceView {
	all, err := s.Sources.SourceViews(c.Request().Context(), kinds...)
	if err != nil {
		return nil
	}
	out := make([]domain.SourceView, len(all))
	for i, v := range all {
		out[i] = s.audience(c).Source(v)
	}
	return out
}
