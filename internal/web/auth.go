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
	admin    bool  // may change data and see secrets: open access, the bearer token, or a live session
	signedIn bool  // holds a live browser session
	err      error // the session could not be checked (Redis down): refused where admin is needed
}

const identityKey = "zpulse.identity"

// who is the request's identity (authenticate set it; none for routes it does not cover).
func who(c echo.Context) identity {
	id, _ := c.Get(identityKey).(identity)
	return id
}

// audience is what the request's reader may see of secrets (domain.Audience): everything for
// an admin (anyone, when access is open), else what the operator shows anonymous readers.
// Every handler that shows a lock, a job or a limiter's clients passes it through this.
func (s *server) audience(c echo.Context) domain.Audience { return s.audienceOf(who(c)) }

func (s *server) audienceOf(id identity) domain.Audience {
	if id.admin {
		return domain.Admin
	}
	return s.anonymous
}

// authenticate finds out who sent a request, once, for the handlers and views after it. A
// bearer token is checked wherever it is sent (a wrong one is a guess of the admin token and
// is refused and counted, even on a read); with sessions (pages, not the API, which takes
// bearer tokens only) a session cookie is looked up in Redis.
func (s *server) authenticate(sessions bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id, err := s.identify(c, sessions)
			if err != nil {
				return err
			}
			c.Set(identityKey, id)
			return next(c)
		}
	}
}

func (s *server) identify(c echo.Context, sessions bool) (identity, error) {
	if s.AdminToken == "" {
		return identity{admin: s.OpenAccess || s.fromLoopback(c)}, nil
	}
	if token, ok := bearerToken(c.Request()); ok {
		if err := s.checkAdminToken(c, token); err != nil {
			return identity{}, err
		}
		return identity{admin: true}, nil
	}
	ck, err := c.Cookie(sessionCookie)
	if !sessions || err != nil || ck.Value == "" {
		return identity{}, nil
	}
	live, err := s.Auth.Session(c.Request().Context(), ck.Value, s.tokenFingerprint)
	if err != nil {
		return identity{err: err}, nil
	}
	return identity{admin: live, signedIn: live}, nil
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

// checkAdminToken is the one check of a guess of the admin token, for sign-in forms and
// bearer tokens alike, under the built-in attempt limit per client address. The token is
// compared first, in constant time and locally; the comparison counts only through one
// atomic script that counts a wrong token and looks for a right one (Auth.Attempt): the
// right token is taken only while fewer than SignInAttempts.Limit wrong ones were counted,
// however many guesses arrive at once, and an address that used its limit up is refused,
// right token or not, so the limit cannot be probed. A right token is not counted: an API
// client that holds it is not limited. When Redis cannot answer, the guess is refused: a
// limit that cannot be checked does not protect.
func (s *server) checkAdminToken(c echo.Context, given string) error {
	ctx, addr := c.Request().Context(), c.RealIP()
	wrong := subtle.ConstantTimeCompare([]byte(given), []byte(s.AdminToken)) != 1
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
	s.Log.Warn("a wrong admin token was sent", "addr", addr, "path", c.Request().URL.Path)
	return domain.Errorf(domain.EUNAUTHORIZED, "that is not the admin token")
}

func attemptsUnchecked(err error) error {
	return fmt.Errorf("web.attemptsUnchecked: %w", domain.Errorf(domain.EUNAVAILABLE,
		"the admin token cannot be checked while Redis is unavailable (its attempt limit lives there): try again when it answers"))
}

func (s *server) tooManyAttempts(c echo.Context, res domain.LimitResult) error {
	retry := max(seconds(res.RetryAfterMs), 1)
	c.Response().Header().Set(echo.HeaderRetryAfter, strconv.FormatInt(retry, 10))
	p := domain.SignInAttempts
	return domain.Errorf(domain.ERATELIMITED, "too many admin-token attempts from your address (%d per %s): try again in %d s",
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

// requireAdminAPI lets a change through the API for an admin: open access (from loopback
// unless --open-access), or the bearer token (authenticate checked it).
func (s *server) requireAdminAPI(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !who(c).admin && s.AdminToken == "" {
			return loopbackOnly
		}
		if !who(c).admin {
			return domain.Errorf(domain.EUNAUTHORIZED, "this call changes data: send the admin token as \"Authorization: Bearer <token>\"")
		}
		return next(c)
	}
}

// requireAdminPage lets a form through for an admin; otherwise it sends the browser to the
// sign-in page, or answers 503 when the session could not be checked, or 403 when there is
// nothing to sign in to (loopback-only open access).
func (s *server) requireAdminPage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := who(c)
		if id.admin {
			return next(c)
		}
		if id.err != nil {
			return id.err
		}
		if s.AdminToken == "" {
			return loopbackOnly
		}
		login := "/login?" + url.Values{"next": {refererPath(c)}}.Encode()
		if isHTMX(c) {
			c.Response().Header().Set("HX-Redirect", urlFor(c, login))
			return c.NoContent(http.StatusUnauthorized)
		}
		return seeOther(c, login)
	}
}

func (s *server) loginPage(c echo.Context) error {
	return s.render(c, http.StatusOK, views.LoginPage(s.chrome(c, "Sign in"), localPath(c.QueryParam("next")), ""))
}

func (s *server) login(c echo.Context) error {
	next := localPath(c.FormValue("next"))
	if s.AdminToken == "" {
		return seeOther(c, next) // access is open: nothing to sign in to
	}
	if err := s.checkAdminToken(c, c.FormValue("token")); err != nil {
		var msg string
		switch domain.ErrorCode(err) {
		case domain.EUNAUTHORIZED:
			msg = "That is not the admin token."
		case domain.ERATELIMITED:
			msg = "Too many sign-in attempts from your address: try again in " + c.Response().Header().Get(echo.HeaderRetryAfter) + " s."
		case domain.EUNAVAILABLE:
			msg = "Sign-in is refused while Redis is unavailable: the attempt limit and the sessions live there. Try again when the banner is gone."
		default:
			return err
		}
		return s.render(c, httpio.StatusOf(domain.ErrorCode(err)), views.LoginPage(s.chrome(c, "Sign in"), next, msg))
	}
	id, err := s.Auth.CreateSession(c.Request().Context(), sessionTTL, s.tokenFingerprint)
	if err != nil {
		return err
	}
	c.SetCookie(s.sessionCookie(c, id, sessionTTL))
	return seeOther(c, next)
}

// logout ends this browser's session in Redis, so a copy of the cookie kept elsewhere
// changes nothing.
func (s *server) logout(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" && s.AdminToken != "" {
		if err := s.Auth.EndSession(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(s.sessionCookie(c, "", -1))
	return seeOther(c, "/")
}

// logoutEverywhere ends every admin session, on every browser and instance.
func (s *server) logoutEverywhere(c echo.Context) error {
	if s.AdminToken == "" {
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
