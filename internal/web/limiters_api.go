package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
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

func (s *server) apiSetLimiter(c echo.Context) error {
	name := pathParam(c, "limiter")
	if err := domain.ValidateLimiterName(name); err != nil {
		return err
	}
	var req limiterPolicyRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Algorithm == nil {
		return domain.Errorf(domain.EINVALID, "algorithm is required: sliding_log, fixed_window, sliding_counter or token_bucket")
	}
	p := domain.LimitPolicy{Name: name, Algorithm: domain.Algorithm(*req.Algorithm)}
	var err error
	if p.Algorithm == domain.TokenBucket {
		if p.RatePerS, err = rateInput.json(req.RatePerS); err != nil {
			return err
		}
		if p.Burst, err = burstInput.json(req.Burst); err != nil {
			return err
		}
	} else {
		if p.Limit, err = limitInput.json(req.Limit); err != nil {
			return err
		}
		window, err := windowInput.millis(req.WindowMs)
		if err != nil {
			return err
		}
		p.WindowMs = window.Milliseconds()
		if len(req.SharedWindowMs) > 0 && string(req.SharedWindowMs) != "null" {
			shared, err := sharedWindowInput.millis(req.SharedWindowMs)
			if err != nil {
				return err
			}
			p.SharedWindowMs = shared.Milliseconds()
		}
	}
	p, err = s.Limiters.SetPolicy(c.Request().Context(), p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (s *server) apiLimiter(c echo.Context) error {
	p, err := s.Limiters.Policy(c.Request().Context(), pathParam(c, "limiter"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (s *server) apiLimiters(c echo.Context) error {
	ps, err := s.Limiters.Policies(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"limiters": ps})
}

type checkRequest struct {
	Client *string `json:"client"`
}

func (s *server) apiCheck(c echo.Context) error {
	var req checkRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Client == nil {
		return domain.Errorf(domain.EINVALID, "client is required: 1 to %d bytes of printable UTF-8", domain.MaxMemberBytes)
	}
	res, err := s.Limiters.Allow(c.Request().Context(), pathParam(c, "limiter"), *req.Client)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) apiPeek(c echo.Context) error {
	res, err := s.Limiters.Peek(c.Request().Context(), pathParam(c, "limiter"), pathParam(c, "client"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
