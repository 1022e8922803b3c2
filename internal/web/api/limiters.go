package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// limiterPolicyRequest is the body of PUT /api/v1/limiters/:limiter. Whole numbers are read
// from their JSON literal so 1.5 or 1e3 is refused rather than rounded.
type limiterPolicyRequest struct {
	Algorithm *string         `json:"algorithm"`
	Limit     json.RawMessage `json:"limit"`
	WindowMs  json.RawMessage `json:"window_ms"`
	RatePerS  json.RawMessage `json:"rate_per_s"`
	Burst     json.RawMessage `json:"burst"`
	// SharedWindowMs: sliding_log only, the longest window of another service on the same keys.
	SharedWindowMs json.RawMessage `json:"shared_window_ms"`
}

func (h *Handlers) SetLimiter(c echo.Context) error {
	name := httpio.PathParam(c, "limiter")
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	var req limiterPolicyRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.Algorithm == nil {
		return domain.Errorf(domain.EINVALID, "algorithm is required: sliding_log, fixed_window, sliding_counter or token_bucket")
	}
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(*req.Algorithm)}
	var err error
	if p.Algorithm == domain.TokenBucket {
		if p.RatePerS, err = httpio.RateInput.JSON(req.RatePerS); err != nil {
			return err
		}
		if p.Burst, err = httpio.BurstInput.JSON(req.Burst); err != nil {
			return err
		}
	} else {
		if p.Limit, err = httpio.LimitInput.JSON(req.Limit); err != nil {
			return err
		}
		window, err := httpio.WindowInput.Millis(req.WindowMs)
		if err != nil {
			return err
		}
		p.WindowMs = window.Milliseconds()
		if len(req.SharedWindowMs) > 0 && string(req.SharedWindowMs) != "null" {
			shared, err := httpio.SharedWindowInput.Millis(req.SharedWindowMs)
			if err != nil {
				return err
			}
			p.SharedWindowMs = shared.Milliseconds()
		}
	}
	p, err = h.Limiters.SetPolicy(c.Request().Context(), p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) Limiter(c echo.Context) error {
	p, err := h.Limiters.Policy(c.Request().Context(), httpio.PathParam(c, "limiter"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) ListLimiters(c echo.Context) error {
	ps, err := h.Limiters.Policies(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"limiters": ps})
}

type checkRequest struct {
	Client *string `json:"client"`
}

func (h *Handlers) Check(c echo.Context) error {
	var req checkRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	if req.Client == nil {
		return domain.Errorf(domain.EINVALID, "client is required: 1 to %d bytes of printable UTF-8", domain.MaxMemberBytes)
	}
	res, err := h.Limiters.Allow(c.Request().Context(), httpio.PathParam(c, "limiter"), *req.Client)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *Handlers) Peek(c echo.Context) error {
	res, err := h.Limiters.Peek(c.Request().Context(), httpio.PathParam(c, "limiter"), httpio.PathParam(c, "client"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// LimiterClients pages through every client the limiter has seen, the latest first; it
// reads the clients list only (a client's standing is Peek's).
func (h *Handlers) LimiterClients(c echo.Context) error {
	limit, err := httpio.EntriesInput.Query(c, 100)
	if err != nil {
		return err
	}
	page, err := h.Limiters.Clients(c.Request().Context(), httpio.PathParam(c, "limiter"), c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	a := h.Audience(c) // a reader who may not see client ids gets their labels
	for i := range page.Clients {
		page.Clients[i].Client = a.Client(page.Clients[i].Client)
	}
	return c.JSON(http.StatusOK, page)
}

func (h *Handlers) DeleteLimiter(c echo.Context) error {
	if err := h.Limiters.DeletePolicy(c.Request().Context(), httpio.PathParam(c, "limiter")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
