package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
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
}

func (s *server) apiSources(c echo.Context) error {
	all, err := s.Sources.Sources(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"sources": all})
}

func (s *server) apiPutSource(c echo.Context) error {
	name := pathParam(c, "source")
	if err := domain.ValidateName("source", name); err != nil {
		return err
	}
	var req sourceRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Kind == nil || req.Key == nil {
		return domain.Errorf(domain.EINVALID, `kind and key are required: kind "board", "queue", "limiter" or "lock", key the layout (e.g. game:rank:{yyyymmdd})`)
	}
	src := domain.Source{Name: name, Kind: domain.SourceKind(*req.Kind), Key: *req.Key}
	in := sourceInputs{encoding: req.Encoding, zone: req.Zone, tokensField: req.TokensField, timeField: req.TimeField, timeUnit: req.TimeUnit,
		limit: string(req.Limit), window: string(req.WindowMs), maxTS: string(req.MaxTS), ratePerS: string(req.RatePerS), windowMs: true}
	if errs := in.fill(&src); len(errs) > 0 {
		return errs[0]
	}
	saved, err := s.Sources.SaveSource(c.Request().Context(), src)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, saved)
}

func (s *server) apiDeleteSource(c echo.Context) error {
	if err := s.Sources.DeleteSource(c.Request().Context(), pathParam(c, "source")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) apiSource(c echo.Context) error {
	v, err := s.Sources.SourceView(c.Request().Context(), pathParam(c, "source"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.audience(c).Source(v))
}

func (s *server) apiTrySource(c echo.Context) error {
	var req struct {
		Client *string `json:"client"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Client == nil {
		return domain.Errorf(domain.EINVALID, "client is required")
	}
	res, err := s.Sources.TrySource(c.Request().Context(), pathParam(c, "source"), *req.Client)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
