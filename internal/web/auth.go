package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

const (
	sessionCookie = "zpulse_session"
	sessionTTL    = 12 * time.Hour
)

// sessions are signed cookies that prove a browser signed in with the admin token. They hold
// only an expiry and its HMAC keyed by the token, so every instance with the same token
// accepts them, and changing the token signs everybody out.
type sessions struct {
	token string
	clock domain.Clock
}

func (s sessions) sign(expiry int64) string {
	key := sha256.Sum256([]byte("zpulse-session-key:" + s.token))
	mac := hmac.New(sha256.New, key[:])
	mac.Write([]byte("zpulse-admin-session:" + strconv.FormatInt(expiry, 10)))
	return strconv.FormatInt(expiry, 10) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (s sessions) cookie(r *http.Request) *http.Cookie {
	expiry := s.clock.Now().Add(sessionTTL)
	return &http.Cookie{Name: sessionCookie, Value: s.sign(expiry.Unix()), Path: "/", Expires: expiry,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode}
}

// valid says whether r carries a session that has not expired.
func (s sessions) valid(r *http.Request) bool {
	if s.token == "" {
		return false
	}
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	exp, _, ok := strings.Cut(ck.Value, ".")
	expiry, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil || s.clock.Now().Unix() >= expiry {
		return false
	}
	return hmac.Equal([]byte(ck.Value), []byte(s.sign(expiry)))
}

func (s *server) isAdminToken(given string) bool {
	return subtle.ConstantTimeCompare([]byte(given), []byte(s.AdminToken)) == 1
}

// requireAdminAPI lets a change through the API when no admin token is configured or the
// request carries it as a Bearer token.
func (s *server) requireAdminAPI(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.AdminToken == "" {
			return next(c)
		}
		given, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		if !ok || !s.isAdminToken(given) {
			return domain.Errorf(domain.EUNAUTHORIZED, "this call changes data: send the admin token as \"Authorization: Bearer <token>\"")
		}
		return next(c)
	}
}

// requireAdminPage lets a form through when no admin token is configured or the browser has
// signed in; otherwise it sends the browser to the sign-in page.
func (s *server) requireAdminPage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.AdminToken == "" || s.sessions.valid(c.Request()) {
			return next(c)
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

// LoginPolicy limits sign-in attempts per address, so the admin token cannot be guessed at
// speed. zpulse saves it at start when an admin token is configured; while it is missing or
// Redis is down, sign-in is not limited (failing open keeps operators able to sign in).
var LoginPolicy = domain.LimitPolicy{Name: "zpulse-login", Algorithm: domain.FixedWindow, Limit: 10, WindowMs: 5 * 60 * 1000}

func (s *server) login(c echo.Context) error {
	next := localPath(c.FormValue("next"))
	if s.AdminToken == "" {
		return seeOther(c, next) // access is open: nothing to sign in to
	}
	if s.Limiters != nil {
		res, err := s.Limiters.Allow(c.Request().Context(), LoginPolicy.Name, apiClient(c.Request()))
		if err == nil && !res.Allowed {
			c.Response().Header().Set(echo.HeaderRetryAfter, strconv.FormatInt(seconds(res.RetryAfterMs), 10))
			msg := fmt.Sprintf("Too many sign-in attempts from your address: try again in %d s.", seconds(res.RetryAfterMs))
			return s.render(c, http.StatusTooManyRequests, views.LoginPage(s.chrome(c, "Sign in"), next, msg))
		}
	}
	if !s.isAdminToken(c.FormValue("token")) {
		return s.render(c, http.StatusUnauthorized, views.LoginPage(s.chrome(c, "Sign in"), next, "That is not the admin token."))
	}
	c.SetCookie(s.sessions.cookie(c.Request()))
	return seeOther(c, next)
}

func (s *server) logout(c echo.Context) error {
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return seeOther(c, "/")
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
