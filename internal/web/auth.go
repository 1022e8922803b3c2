package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

const (
	sessionCookie = "zpulse_session"
	sessionTTL    = 12 * time.Hour
)

// identity is who sent a request, as authenticate found out.
type identity struct {
	// actor is who they are and the role they act with: the bootstrap admin ("admin"), a
	// personal token's name, a session's holder, the client's address under open access,
	// or "anonymous" with RoleNone.
	actor    domain.Actor
	signedIn bool   // holds a live browser session
	tokenID  string // the personal token the request or its session came with
	secret   string // the bearer secret of this request (never logged): a websocket rechecks it
	err      error  // the session could not be checked (Redis down): refused where a role is needed
	// refused is why the credentials the request sent were refused (a wrong token, too many
	// attempts): a change is answered with it by its role check, so the audit trail records
	// it with the route's action; a read is answered with it at once.
	refused error
}

// may says whether the request may do what needs role r.
func (id identity) may(r domain.Role) bool { return id.actor.Role.Allows(r) }

const identityKey = "zpulse.identity"

// who is the request's identity (authenticate set it; none for routes it does not cover).
func who(c echo.Context) identity {
	id, _ := c.Get(identityKey).(identity)
	if id.actor.Name == "" {
		id.actor = domain.NoActor
	}
	return id
}

// audience is what the request's reader may see of secrets (domain.AudienceOf its role):
// everything for an admin (anyone from loopback, when access is open), payloads and client
// ids for viewers and operators, else what the operator shows anonymous readers. Every
// handler that shows a lock, a job or a limiter's clients passes it through this.
func (s *server) audience(c echo.Context) domain.Audience { return s.audienceOf(who(c)) }

func (s *server) audienceOf(id identity) domain.Audience {
	return domain.AudienceOf(id.actor.Role, s.anonymous)
}

// authenticate finds out who sent a request, once, for the handlers and views after it, and
// puts the actor into the request's context (domain.WithActor) for services and the audit
// trail. A bearer token is checked wherever it is sent (a wrong one is a guess and is refused
// and counted, even on a read); with sessions (pages, not the API, which takes bearer tokens
// only) a session cookie is looked up in Redis.
func (s *server) authenticate(sessions bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id, err := s.identify(c, sessions)
			if err != nil {
				if m := c.Request().Method; m == http.MethodGet || m == http.MethodHead {
					return err
				}
				id = identity{actor: domain.Actor{Name: domain.NoActor.Name, Via: viaOf(c)}, refused: err}
			}
			c.Set(identityKey, id)
			r := c.Request()
			c.SetRequest(r.WithContext(domain.WithActor(r.Context(), id.actor)))
			return next(c)
		}
	}
}

func (s *server) identify(c echo.Context, sessions bool) (identity, error) {
	via := domain.ViaAPI
	if sessions {
		via = domain.ViaPage
	}
	anonymous := identity{actor: domain.Actor{Name: domain.NoActor.Name, Role: domain.RoleNone, Via: via}}
	if !s.protected() {
		role := domain.RoleNone
		if s.OpenAccess || s.fromLoopback(c) {
			role = domain.RoleAdmin
		}
		return identity{actor: domain.Actor{Name: c.RealIP(), Role: role, Via: via}}, nil
	}
	if token, ok := bearerToken(c.Request()); ok {
		id, err := s.checkToken(c, token)
		id.actor.Via, id.secret = via, token
		return id, err
	}
	if a, ok := s.proxyIdentity(c.Request()); ok {
		a.Via = via
		return identity{actor: a}, nil
	}
	ck, err := c.Cookie(sessionCookie)
	if !sessions || err != nil || ck.Value == "" {
		return anonymous, nil
	}
	h, live, err := s.Auth.Session(c.Request().Context(), ck.Value, s.tokenFingerprint)
	if err != nil {
		anonymous.err = err
		return anonymous, nil
	}
	if !live {
		return anonymous, nil
	}
	return identity{actor: domain.Actor{Name: h.Name, Role: h.Role, Via: via}, signedIn: true, tokenID: h.Token}, nil
}

// bearerToken is the credentials of an "Authorization: Bearer <token>" header; the scheme is
// case-insensitive (RFC 9110 section 11.1).
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, _ := strings.Cut(r.Header.Get(echo.HeaderAuthorization), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// checkToken is the one check of a token a client sends (a bearer token, the sign-in form's):
// the admin token (constant-time, locally), else a personal token (its record read by the
// secret's public id, its hash compared in constant time). Either way the outcome counts
// through the one attempt limit (checkAttempt); nothing of the token is logged.
func (s *server) checkToken(c echo.Context, given string) (identity, error) {
	admin := s.AdminToken != "" && subtle.ConstantTimeCompare([]byte(given), []byte(s.AdminToken)) == 1
	var tok domain.APIToken
	var found bool
	if !admin && s.Tokens != nil {
		var err error
		if tok, found, err = s.Tokens.TokenBySecret(c.Request().Context(), given); err != nil {
			return identity{}, attemptsUnchecked(err)
		}
	}
	if err := s.checkAttempt(c, !admin && !found); err != nil {
		return identity{}, err
	}
	if admin {
		return identity{actor: domain.Actor{Name: "admin", Role: domain.RoleAdmin}}, nil
	}
	return identity{actor: domain.Actor{Name: tok.Name, Role: tok.Role}, tokenID: tok.ID}, nil
}

// checkAttempt settles one token guess under the built-in attempt limit per client address,
// for sign-in forms and bearer tokens alike. The token was compared first (checkToken, in
// constant time); the comparison counts only through one
// atomic script that counts a wrong token and looks for a right one (Auth.Attempt): the
// right token is taken only while fewer than SignInAttempts.Limit wrong ones were counted,
// however many guesses arrive at once, and an address that used its limit up is refused,
// right token or not, so the limit cannot be probed. A right token is not counted: an API
// client that holds it is not limited. When Redis cannot answer, the guess is refused: a
// limit that cannot be checked does not protect.
func (s *server) checkAttempt(c echo.Context, wrong bool) error {
	ctx, addr := c.Request().Context(), c.RealIP()
	res, err := s.Auth.Attempt(ctx, addr, wrong)
	if err != nil {
		return attemptsUnchecked(err)
	}
	if !res.Allowed {
		return s.tooManyAttempts(c, res)
	}
	if !wrong {
		return nil
	}
	s.Log.Warn("a wrong token was sent", "addr", addr, "path", c.Request().URL.Path)
	return domain.Errorf(domain.EUNAUTHORIZED, "that is not the admin token nor a live personal token (it may be revoked or expired)")
}

func attemptsUnchecked(err error) error {
	return fmt.Errorf("web.attemptsUnchecked: %w", domain.Errorf(domain.EUNAVAILABLE,
		"tokens cannot be checked while Redis is unavailable (personal tokens and the attempt limit live there): try again when it answers"))
}

func (s *server) tooManyAttempts(c echo.Context, res domain.LimitResult) error {
	retry := max(seconds(res.RetryAfterMs), 1)
	c.Response().Header().Set(echo.HeaderRetryAfter, strconv.FormatInt(retry, 10))
	p := domain.SignInAttempts
	return domain.Errorf(domain.ERATELIMITED, "too many token attempts from your address (%d per %s): try again in %d s",
		p.Limit, windowText(p.WindowMs), retry)
}

// fingerprint names an admin token without giving it away; sessions carry it, so changing
// the token ends them.
func fingerprint(token string) string {
	sum := sha256.Sum256([]byte("zpulse-admin-token:" + token))
	return hex.EncodeToString(sum[:8])
}

// loopbackOnly answers a change from another address while access is open to loopback only.
var loopbackOnly = echo.NewHTTPError(http.StatusForbidden, "no admin token is set, so changes are accepted only from this machine (loopback): "+
	"start zpulse with --admin-token (then sign in, or send it as a Bearer token) or, to let anyone who reaches it change data, --open-access")

// requireRole lets a request through for an identity whose role allows a.role; otherwise it
// says why: 503 when the session could not be checked, 403 when nothing could be signed in
// to (loopback-only open access), the sign-in page (a page) or 401 (the API) without
// credentials, and 403 naming the role needed to one signed in with a lower role.
func (s *server) requireRole(a access, page bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if a.action != "" {
				c.Set(accessKey, a)
			}
			id := who(c)
			switch {
			case id.refused != nil:
				return id.refused
			case id.may(a.role):
				return next(c)
			case id.err != nil:
				return id.err
			case !s.protected():
				return loopbackOnly
			case id.actor.Role == domain.RoleNone && page:
				login := "/login?" + url.Values{"next": {refererPath(c)}}.Encode()
				if isHTMX(c) {
					c.Response().Header().Set("HX-Redirect", urlFor(c, login))
					return c.NoContent(http.StatusUnauthorized)
				}
				return seeOther(c, login)
			case id.actor.Role == domain.RoleNone:
				return domain.Errorf(domain.EUNAUTHORIZED, "this call changes data (%s) and needs the %s role: send a token as \"Authorization: Bearer <token>\"", a.action, a.role)
			}
			return domain.Errorf(domain.EFORBIDDEN, "%s needs the %s role; %s has the %s role: ask an admin for a token with the %s role", a.action, a.role, id.actor.Name, id.actor.Role, a.role)
		}
	}
}

func (s *server) loginPage(c echo.Context) error {
	return s.render(c, http.StatusOK, views.LoginPage(s.chrome(c, "Sign in"), localPath(c.QueryParam("next")), ""))
}

func (s *server) login(c echo.Context) error {
	next := localPath(c.FormValue("next"))
	if !s.protected() {
		return seeOther(c, next) // access is open: nothing to sign in to
	}
	who, err := s.checkToken(c, c.FormValue("token"))
	if err != nil {
		var msg string
		switch domain.ErrorCode(err) {
		case domain.EUNAUTHORIZED:
			msg = "That is not the admin token nor a live personal token (it may have been revoked or have expired)."
		case domain.ERATELIMITED:
			msg = "Too many sign-in attempts from your address: try again in " + c.Response().Header().Get(echo.HeaderRetryAfter) + " s."
		case domain.EUNAVAILABLE:
			msg = "Sign-in is refused while Redis is unavailable: the attempt limit and the sessions live there. Try again when the banner is gone."
		default:
			return err
		}
		return s.render(c, httpio.StatusOf(domain.ErrorCode(err)), views.LoginPage(s.chrome(c, "Sign in"), next, msg))
	}
	holder := domain.SessionHolder{Name: who.actor.Name, Role: who.actor.Role, Token: who.tokenID}
	id, err := s.Auth.CreateSession(c.Request().Context(), sessionTTL, s.tokenFingerprint, holder)
	if err != nil {
		return err
	}
	c.SetCookie(s.sessionCookie(c, id, sessionTTL))
	return seeOther(c, next)
}

// logout ends this browser's session in Redis, so a copy of the cookie kept elsewhere
// changes nothing.
func (s *server) logout(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" && s.protected() {
		if err := s.Auth.EndSession(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(s.sessionCookie(c, "", -1))
	return seeOther(c, "/")
}

// logoutEverywhere ends every admin session, on every browser and instance.
func (s *server) logoutEverywhere(c echo.Context) error {
	if !s.protected() {
		return seeOther(c, "/")
	}
	if err := s.Auth.EndAllSessions(c.Request().Context()); err != nil {
		return err
	}
	s.Log.Warn("every admin session was ended", "addr", c.RealIP())
	c.SetCookie(s.sessionCookie(c, "", -1))
	return seeOther(c, "/")
}

// sessionCookie is the cookie of session id that lasts ttl (a negative ttl deletes it).
// It is Secure when the browser reached zpulse over HTTPS: directly, or (with --trust-proxy)
// through a proxy that says so.
func (s *server) sessionCookie(c echo.Context, id string, ttl time.Duration) *http.Cookie {
	ck := &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, Secure: s.overHTTPS(c.Request()),
		SameSite: http.SameSiteLaxMode}
	if ttl < 0 {
		ck.MaxAge = -1
	} else {
		ck.MaxAge = int(ttl.Seconds())
	}
	return ck
}

// localPath keeps a "back to" address on this site: a path of its own or "/". A full URL
// (as a Referer is) is reduced to its path.
func localPath(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Path == "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") || strings.ContainsRune(u.Path, '\\') {
		return "/"
	}
	return (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).RequestURI()
}
