package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/api"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// tokensPage is the admin's page of personal tokens (routes.go lets admins only in).
func (s *server) tokensPage(c echo.Context) error {
	return s.renderTokens(c, http.StatusOK, views.TokensPageData{Form: views.NewForm()})
}

// renderTokens reads the live tokens into d and renders the page; a failed read says so on
// the page instead of showing an empty list.
func (s *server) renderTokens(c echo.Context, status int, d views.TokensPageData) error {
	store := s.tokens()
	if store == nil {
		return domain.Errorf(domain.ECONFLICT, "personal tokens need an admin token or an authenticating proxy: access is open without one")
	}
	all, err := store.Tokens(c.Request().Context())
	if err != nil {
		d.Error = "The tokens could not be read: " + domain.ErrorMessage(err)
	}
	d.Tokens = all
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return s.render(c, status, views.TokensPage(s.chrome(c, "Tokens"), d))
}

// createTokenForm makes a token and shows its secret this once.
func (s *server) createTokenForm(c echo.Context) error {
	f := views.NewForm()
	for _, k := range []string{"name", "role", "expires_in"} {
		f.Values[k] = c.FormValue(k)
	}
	name, role, expires := f.Values["name"], f.Values["role"], f.Values["expires_in"]
	n, err := api.ParseNewToken(&name, &role, &expires)
	var made views.MadeToken
	if err == nil {
		n.CreatedBy = domain.ActorOf(c.Request().Context()).Name
		var t domain.APIToken
		var secret string
		if t, secret, err = s.tokens().CreateToken(c.Request().Context(), n); err == nil {
			made = views.MadeToken{Name: t.Name, Role: t.Role.String(), Secret: secret}
			return s.renderTokens(c, http.StatusCreated, views.TokensPageData{Form: views.NewForm(), Made: &made})
		}
	}
	status, msg, shown := httpio.FormFailure(err, "no token was made")
	if !shown {
		return err
	}
	f.Errors[domain.ErrorField(err)] = msg
	return s.renderTokens(c, status, views.TokensPageData{Form: f})
}

// revokeTokenForm revokes a token and goes back to the list.
func (s *server) revokeTokenForm(c echo.Context) error {
	if err := s.tokens().RevokeToken(c.Request().Context(), httpio.PathParam(c, "name")); err != nil {
		status, msg, shown := httpio.FormFailure(err, "nothing was revoked")
		if !shown {
			return err
		}
		return s.renderTokens(c, status, views.TokensPageData{Form: views.NewForm(), Error: msg})
	}
	return seeOther(c, "/tokens")
}
