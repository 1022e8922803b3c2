package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// tokenRequest is the body of POST /api/v1/tokens.
type tokenRequest struct {
	Name      *string `json:"name"`
	Role      *string `json:"role"`
	ExpiresIn *string `json:"expires_in"` // a Go duration ("720h"); absent: never expires
}

// tokenAnswer is a personal token as the API shows it: never its secret, except Token in the
// answer that made it (the one time it is shown).
type tokenAnswer struct {
	Name      string     `json:"name"`
	Role      string     `json:"role"`
	Token     string     `json:"token,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	CreatedBy string     `json:"created_by"`
	ExpiresAt *time.Time `json:"expires_at"`
	LastUsed  *time.Time `json:"last_used"`
}

func answerToken(t domain.APIToken) tokenAnswer {
	a := tokenAnswer{Name: t.Name, Role: t.Role.String(), CreatedAt: t.CreatedAt.UTC(), CreatedBy: t.CreatedBy}
	if !t.ExpiresAt.IsZero() {
		at := t.ExpiresAt.UTC()
		a.ExpiresAt = &at
	}
	if !t.LastUsed.IsZero() {
		at := t.LastUsed.UTC()
		a.LastUsed = &at
	}
	return a
}

// tokensOff answers the tokens' calls while personal tokens are off.
func (h *Handlers) tokensOff() error {
	if h.Tokens == nil {
		return domain.Errorf(domain.ECONFLICT, "personal tokens need an admin token: start zpulse with --admin-token (access is open without one)")
	}
	return nil
}

// ParseNewToken reads a token to make: name, role and expires_in, each error naming its field.
func ParseNewToken(name, role, expiresIn *string) (domain.NewAPIToken, error) {
	var n domain.NewAPIToken
	if name == nil {
		return n, domain.FieldErrorf("name", domain.EINVALID, "name is required: 1 to 64 characters from a-z, 0-9 and . _ -")
	}
	if role == nil {
		return n, domain.FieldErrorf("role", domain.EINVALID, "role is required: viewer, operator or admin")
	}
	n.Name = *name
	if err := domain.ValidateTokenName(n.Name); err != nil {
		return n, err
	}
	r, err := domain.ParseRole("role", *role)
	if err != nil {
		return n, err
	}
	n.Role = r
	if expiresIn != nil && *expiresIn != "" {
		d, err := time.ParseDuration(*expiresIn)
		if err != nil || d <= 0 {
			return n, domain.FieldErrorf("expires_in", domain.EINVALID, "expires_in must be a positive Go duration such as 720h or 90m, not %q", *expiresIn)
		}
		n.ExpiresIn = d
	}
	return n, n.Validate()
}

func (h *Handlers) CreateToken(c echo.Context) error {
	if err := h.tokensOff(); err != nil {
		return err
	}
	var req tokenRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	n, err := ParseNewToken(req.Name, req.Role, req.ExpiresIn)
	if err != nil {
		return err
	}
	n.CreatedBy = domain.ActorOf(c.Request().Context()).Name
	t, secret, err := h.Tokens.CreateToken(c.Request().Context(), n)
	if err != nil {
		return err
	}
	a := answerToken(t)
	a.Token = secret
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusCreated, a)
}

func (h *Handlers) ListTokens(c echo.Context) error {
	if err := h.tokensOff(); err != nil {
		return err
	}
	all, err := h.Tokens.Tokens(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]tokenAnswer, len(all))
	for i, t := range all {
		out[i] = answerToken(t)
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": out})
}

func (h *Handlers) RevokeToken(c echo.Context) error {
	if err := h.tokensOff(); err != nil {
		return err
	}
	if err := h.Tokens.RevokeToken(c.Request().Context(), httpio.PathParam(c, "name")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
