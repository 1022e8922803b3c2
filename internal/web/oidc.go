package web

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"github.com/zpulse/zpulse/internal/domain"
)

// OIDCConfig is sign-in with OpenID Connect (--oidc-*): the authorization code flow with
// PKCE against Issuer, as the client ClientID.
type OIDCConfig struct {
	Issuer, ClientID, ClientSecret string // the secret is never logged
	RedirectURL                    string // zpulse's /login/oidc/callback as the browser reaches it
	// RolesClaim names the ID token's claim listing the person's groups ("groups"; a dotted
	// path such as "realm_access.roles" reads a nested one); "" reads none.
	RolesClaim string
	// Admins and Operators name who gets those roles: a group of RolesClaim, or a verified
	// e-mail address. Others get Default (RoleViewer, or RoleNone: refused).
	Admins, Operators []string
	Default           domain.Role
	// Scopes are asked for besides openid ("profile", "email", and "groups" where the
	// provider needs a scope for the groups claim, as Dex does); nil: profile and email.
	Scopes []string
	// Now is the clock an ID token's expiry is checked against; nil: time.Now.
	Now func() time.Time
}

// OIDC is the OpenID provider as zpulse knows it: its configuration, and its discovery
// document and keys once fetched (Discover, or lazily on the first sign-in).
type OIDC struct {
	cfg OIDCConfig
	log *slog.Logger

	mu       sync.Mutex
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
}

// NewOIDC returns the sign-in with cfg; nothing is fetched yet.
func NewOIDC(cfg OIDCConfig, log *slog.Logger) *OIDC { return &OIDC{cfg: cfg, log: log} }

// oidcProviderTimeout bounds one call to the provider: the discovery document, the code's
// exchange with the keys' fetch.
const oidcProviderTimeout = 10 * time.Second

// Discover fetches the provider's discovery document, unless it was fetched already. At
// start an error is not fatal: the next sign-in tries again.
func (o *OIDC) Discover(ctx context.Context) error {
	_, _, err := o.ready(ctx)
	return err
}

// ready is the OAuth 2.0 client and the ID token verifier, discovering the provider first if
// no fetch has succeeded yet.
func (o *OIDC) ready(ctx context.Context) (*oauth2.Config, *oidc.IDTokenVerifier, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.oauth != nil {
		return o.oauth, o.verifier, nil
	}
	ctx, cancel := context.WithTimeout(ctx, oidcProviderTimeout)
	defer cancel()
	p, err := oidc.NewProvider(ctx, o.cfg.Issuer)
	if err != nil {
		return nil, nil, fmt.Errorf("web.OIDC.ready: discovery of %s: %w", o.cfg.Issuer, err)
	}
	scopes := o.cfg.Scopes
	if scopes == nil {
		scopes = []string{"profile", "email"}
	}
	o.oauth = &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: p.Endpoint(), Scopes: append([]string{oidc.ScopeOpenID}, slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == oidc.ScopeOpenID })...)}
	o.verifier = p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID, Now: o.cfg.Now})
	o.log.Info("oidc: provider discovered", "issuer", o.cfg.Issuer)
	return o.oauth, o.verifier, nil
}

// unreachable is the answer to a sign-in while the provider cannot be discovered.
func (o *OIDC) unreachable(err error) error {
	o.log.Warn("oidc: the provider cannot be reached; the next sign-in tries again", "issuer", o.cfg.Issuer, "err", err)
	return domain.Errorf(domain.EUNAVAILABLE, "single sign-on is unavailable: the provider (%s) cannot be reached. Try again in a moment, or sign in with a token.", o.cfg.Issuer)
}

const (
	oidcCookie  = "zpulse_oidc"
	oidcFlowTTL = 10 * time.Minute
)

// oidcFlow is what the browser keeps between the redirect to the provider and the way back:
// the state and nonce to check, PKCE's verifier, and the page to return to. It is kept in a
// short-lived HttpOnly, SameSite=Lax cookie scoped to /login/oidc rather than in Redis: the
// flow is then bound to the browser that started it (a callback from another browser finds
// no cookie), any instance behind a load balancer can finish it, and a visitor who never
// comes back leaves nothing behind. Lax (not Strict) because the way back is a top-level GET
// from the provider's site.
type oidcFlow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"r"`
}

func (s *server) oidcFlowCookie(c echo.Context, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: oidcCookie, Value: value, Path: urlFor(c, "/login/oidc"), MaxAge: maxAge,
		HttpOnly: true, Secure: s.overHTTPS(c.Request()), SameSite: http.SameSiteLaxMode}
}

// oidcStart sends the browser to the provider, with a fresh state, nonce and PKCE challenge.
func (s *server) oidcStart(c echo.Context) error {
	if s.OIDC == nil {
		return domain.Errorf(domain.ENOTFOUND, "single sign-on is not configured on this server (--oidc-issuer): sign in with a token")
	}
	conf, _, err := s.OIDC.ready(c.Request().Context())
	if err != nil {
		return s.OIDC.unreachable(err)
	}
	flow := oidcFlow{State: oauth2.GenerateVerifier(), Nonce: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier(),
		Next: localPath(c.QueryParam("next"))}
	raw, err := json.Marshal(flow)
	if err != nil {
		return fmt.Errorf("web.oidcStart: %w", err)
	}
	c.SetCookie(s.oidcFlowCookie(c, base64.RawURLEncoding.EncodeToString(raw), int(oidcFlowTTL.Seconds())))
	to := conf.AuthCodeURL(flow.State, oidc.Nonce(flow.Nonce), oauth2.S256ChallengeOption(flow.Verifier))
	return c.Redirect(http.StatusFound, to)
}

// oidcCallback finishes the flow: the state must be the one this browser's cookie holds, the
// code is exchanged with PKCE's verifier, the ID token verified (signature, issuer, audience
// = the client id, expiry) and its nonce compared; then the person gets a session, as a
// token's sign-in does. Every refusal is a 4xx page that says why, and no session.
func (s *server) oidcCallback(c echo.Context) error {
	if s.OIDC == nil {
		return domain.Errorf(domain.ENOTFOUND, "single sign-on is not configured on this server (--oidc-issuer): sign in with a token")
	}
	flow, ok := s.takeOIDCFlow(c)
	switch {
	case !ok:
		return domain.Errorf(domain.EINVALID, "this sign-in was not started in this browser or took longer than %s: start again from the sign-in page", oidcFlowTTL)
	case subtle.ConstantTimeCompare([]byte(c.QueryParam("state")), []byte(flow.State)) != 1:
		return domain.Errorf(domain.EINVALID, "the sign-in's state does not match the one this browser started: start again from the sign-in page")
	case c.QueryParam("error") != "":
		return domain.Errorf(domain.EFORBIDDEN, "the single sign-on provider refused the sign-in (%s): ask whoever runs it", clip(c.QueryParam("error"), 64))
	case c.QueryParam("code") == "":
		return domain.Errorf(domain.EINVALID, "the provider's answer has no authorization code: start again from the sign-in page")
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), oidcProviderTimeout) // the exchange and the keys' fetch
	defer cancel()
	conf, verifier, err := s.OIDC.ready(ctx)
	if err != nil {
		return s.OIDC.unreachable(err)
	}
	tok, err := conf.Exchange(ctx, c.QueryParam("code"), oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			s.Log.Warn("oidc: the provider refused the code", "error", re.ErrorCode)
			return domain.Errorf(domain.EUNAUTHORIZED, "the provider refused to exchange the sign-in's code (%s): start again from the sign-in page", clip(re.ErrorCode, 64))
		}
		return s.OIDC.unreachable(err)
	}
	rawID, _ := tok.Extra("id_token").(string)
	if rawID == "" {
		return domain.Errorf(domain.EUNAUTHORIZED, "the provider's answer has no ID token: is the client an OpenID Connect client?")
	}
	idt, err := verifier.Verify(ctx, rawID)
	if err != nil {
		s.Log.Warn("oidc: an ID token was refused", "err", err)
		return domain.Errorf(domain.EUNAUTHORIZED, "the provider's ID token was refused (its signature, issuer, audience or expiry is not right): start again from the sign-in page")
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(flow.Nonce)) != 1 {
		return domain.Errorf(domain.EUNAUTHORIZED, "the ID token's nonce is not the one this sign-in sent: start again from the sign-in page")
	}
	return s.oidcSignIn(c, idt, flow.Next)
}

// oidcSignIn opens the session of the person the verified ID token names.
func (s *server) oidcSignIn(c echo.Context, idt *oidc.IDToken, next string) error {
	p, err := s.OIDC.person(idt)
	if err != nil {
		return err
	}
	actor := domain.Actor{Name: p.name, Role: p.role, Via: domain.ViaPage}
	r := c.Request()
	c.SetRequest(r.WithContext(domain.WithActor(r.Context(), actor))) // the audit trail names them
	if p.role == domain.RoleNone {
		s.Log.Warn("oidc: a person without a role was refused", "name", p.name)
		return domain.Errorf(domain.EFORBIDDEN, "you signed in as %s, but this zpulse gives no role to you or your groups: ask its admin to add you (--oidc-admins, --oidc-operators)", p.name)
	}
	holder := domain.SessionHolder{Name: p.name, Role: p.role}
	id, err := s.Auth.CreateSession(r.Context(), sessionTTL, s.tokenFingerprint, holder)
	if err != nil {
		return err
	}
	c.SetCookie(s.sessionCookie(c, id, sessionTTL))
	return seeOther(c, next)
}

// takeOIDCFlow reads this browser's flow cookie and deletes it: a flow is finished once.
func (s *server) takeOIDCFlow(c echo.Context) (oidcFlow, bool) {
	ck, err := c.Cookie(oidcCookie)
	if err != nil {
		return oidcFlow{}, false
	}
	c.SetCookie(s.oidcFlowCookie(c, "", -1))
	raw, err := base64.RawURLEncoding.DecodeString(ck.Value)
	var f oidcFlow
	if err != nil || json.Unmarshal(raw, &f) != nil || f.State == "" || f.Nonce == "" || f.Verifier == "" {
		return oidcFlow{}, false
	}
	f.Next = localPath(f.Next)
	return f, true
}

// oidcPerson is who a verified ID token names, and their role.
type oidcPerson struct {
	name string
	role domain.Role
}

// person reads the ID token's claims: the name is the e-mail address, else the
// preferred_username, else the subject; an e-mail address counts for the role lists only
// when the provider says it is verified.
func (o *OIDC) person(idt *oidc.IDToken) (oidcPerson, error) {
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return oidcPerson{}, domain.Errorf(domain.EUNAUTHORIZED, "the ID token's claims cannot be read")
	}
	str := func(k string) string { v, _ := claims[k].(string); return strings.TrimSpace(v) }
	email, verified := str("email"), claims["email_verified"] == true
	name := email
	for _, alt := range []string{str("preferred_username"), idt.Subject} {
		if name == "" {
			name = alt
		}
	}
	if name == "" || len(name) > maxProxyName || domain.ValidateMember("name", name) != nil {
		return oidcPerson{}, domain.Errorf(domain.EUNAUTHORIZED, "the ID token names nobody zpulse can show (no usable email, preferred_username or sub)")
	}
	groups := claimList(claims, o.cfg.RolesClaim)
	if !verified {
		email = ""
	}
	return oidcPerson{name: name, role: o.roleOf(email, groups)}, nil
}

// roleOf is the role of a person with a verified e-mail address (or "") and groups.
func (o *OIDC) roleOf(email string, groups []string) domain.Role {
	in := func(list []string) bool {
		for _, g := range list {
			if (email != "" && strings.EqualFold(g, email)) || slices.Contains(groups, g) {
				return true
			}
		}
		return false
	}
	switch {
	case in(o.cfg.Admins):
		return domain.RoleAdmin
	case in(o.cfg.Operators):
		return domain.RoleOperator
	}
	return o.cfg.Default
}

// claimList is the list of strings at path (dotted for a nested claim) in claims: a JSON
// array of strings, or one string; nothing for a path that is "" or absent.
func claimList(claims map[string]any, path string) []string {
	if path == "" {
		return nil
	}
	var v any = claims
	for part := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, item := range v {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// clip keeps s printable and at most n bytes, for a provider's word put into a message.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > n {
		s = s[:n]
	}
	return s
}
