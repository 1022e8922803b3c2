package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// The API of a board's seasons (end one, list them, read one like a board) and of its
// encoding check.

func (h *Handlers) EndSeason(c echo.Context) error {
	// It takes no options: nothing, or {}. Any other body is refused, not ignored.
	var none struct{}
	if err := httpio.DecodeOptionalJSON(c, &none); err != nil {
		return err
	}
	season, err := h.Leaderboards.EndSeason(c.Request().Context(), httpio.PathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, season)
}

func (h *Handlers) ListSeasons(c echo.Context) error {
	list, err := h.Leaderboards.Seasons(c.Request().Context(), httpio.PathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

func (h *Handlers) SeasonTop(c echo.Context) error {
	n, err := httpio.SeasonParam(c)
	if err != nil {
		return err
	}
	limit, err := httpio.TopNInput.Query(c, domain.BoardTopN)
	if err != nil {
		return err
	}
	season, entries, err := h.Leaderboards.SeasonTop(c.Request().Context(), httpio.PathParam(c, "board"), n, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"season": season, "entries": entries})
}

func (h *Handlers) SeasonEntries(c echo.Context) error {
	n, err := httpio.SeasonParam(c)
	if err != nil {
		return err
	}
	limit, err := httpio.EntriesInput.Query(c, 100)
	if err != nil {
		return err
	}
	page, err := h.Leaderboards.SeasonEntries(c.Request().Context(), httpio.PathParam(c, "board"), n, c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

func (h *Handlers) SeasonPlayer(c echo.Context) error {
	n, err := httpio.SeasonParam(c)
	if err != nil {
		return err
	}
	entry, err := h.Leaderboards.SeasonPlayer(c.Request().Context(), httpio.PathParam(c, "board"), n, httpio.PathParam(c, "player"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

func (h *Handlers) CheckEncoding(c echo.Context) error {
	r, err := h.Leaderboards.CheckEncoding(c.Request().Context(), httpio.PathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *Handlers) FixEncoding(c echo.Context) error {
	var req struct {
		TieBreak *domain.TieBreak `json:"tie_break"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.TieBreak == nil {
		return domain.FieldErrorf("tie_break", domain.EINVALID, "tie_break is required: the encoding to save and rewrite misfit scores in (GET …/encoding says which most misfits fit)")
	}
	fix, err := h.Leaderboards.FixEncoding(c.Request().Context(), httpio.PathParam(c, "board"), *req.TieBreak)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, fix)
}
