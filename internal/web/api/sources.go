package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// sourceRequest is the body of PUT /api/v1/sources/:source.
type sourceRequest struct {
	Kind        *string         `json:"kind"`
	Key         *string         `json:"key"`
	Encoding    string          `json:"encoding"`
	Limit       json.RawMessage `json:"limit"`
	WindowMs    json.RawMessage `json:"window_ms"`
	Zone        string          `json:"zone"`
	MaxTS       json.RawMessage `json:"max_ts"`
	TokensField string          `json:"tokens_field"`
	TimeField   string          `json:"time_field"`
	TimeUnit    string          `json:"time_unit"`
	RatePerS    json.RawMessage `json:"rate_per_s"`
	SortOrder   string          `json:"sort_order"`
}

// sourceList is the answer of GET /api/v1/sources.
type sourceList struct {
	Sources  []domain.Source        `json:"sources"`
	Overlaps []domain.SourceOverlap `json:"overlaps,omitempty"`
}

func (h *Handlers) ListSources(c echo.Context) error {
	all, err := h.Sources.Sources(c.Request().Context())
	if err != nil {
		return err
	}
	// Sources saved before overlaps were refused are flagged: change or delete one of each pair.
	return c.JSON(http.StatusOK, sourceList{Sources: all, Overlaps: domain.SourceOverlaps(all)})
}

func (h *Handlers) PutSource(c echo.Context) error {
	name := httpio.PathParam(c, "source")
	if err := domain.ValidateName("source", name); err != nil {
		return err
	}
	var req sourceRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.Kind == nil || req.Key == nil {
		return domain.Errorf(domain.EINVALID, `kind and key are required: kind "board", "queue", "limiter" or "lock", key the layout (e.g. game:rank:{yyyymmdd})`)
	}
	src := domain.Source{Name: name, Kind: domain.SourceKind(*req.Kind), Key: *req.Key}
	in := httpio.SourceInputs{Encoding: req.Encoding, Zone: req.Zone, TokensField: req.TokensField, TimeField: req.TimeField, TimeUnit: req.TimeUnit,
		Limit: string(req.Limit), Window: string(req.WindowMs), MaxTS: string(req.MaxTS), RatePerS: string(req.RatePerS), SortOrder: req.SortOrder, WindowMs: true}
	if errs := in.Fill(&src); len(errs) > 0 {
		return errs[0]
	}
	saved, err := h.Sources.SaveSource(c.Request().Context(), src)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, saved)
}

func (h *Handlers) DeleteSource(c echo.Context) error {
	if err := h.Sources.DeleteSource(c.Request().Context(), httpio.PathParam(c, "source")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) Source(c echo.Context) error {
	v, err := h.Sources.SourceView(c.Request().Context(), httpio.PathParam(c, "source"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h.Audience(c).Source(v))
}

func (h *Handlers) TrySource(c echo.Context) error {
	var req struct {
		Client *string `json:"client"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.Client == nil {
		return domain.Errorf(domain.EINVALID, "client is required")
	}
	res, err := h.Sources.TrySource(c.Request().Context(), httpio.PathParam(c, "source"), *req.Client)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// An adopted board is read as a zpulse board is: its entries, a player, around a player.

func (h *Handlers) SourceEntries(c echo.Context) error {
	limit, err := httpio.EntriesInput.Query(c, 100)
	if err != nil {
		return err
	}
	page, err := h.Sources.SourceEntries(c.Request().Context(), httpio.PathParam(c, "source"), c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

func (h *Handlers) SourcePlayer(c echo.Context) error {
	entry, err := h.Sources.SourcePlayer(c.Request().Context(), httpio.PathParam(c, "source"), httpio.PathParam(c, "player"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

func (h *Handlers) SourceAround(c echo.Context) error {
	n, err := httpio.AroundNInput.Query(c, 5)
	if err != nil {
		return err
	}
	entries, err := h.Sources.SourceAround(c.Request().Context(), httpio.PathParam(c, "source"), httpio.PathParam(c, "player"), n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}
