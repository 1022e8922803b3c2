package web

import (
	"mime"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/zpulse/zpulse/internal/web/httpio"
)

// contentSecurityPolicy allows only zpulse's own scripts, styles and connections.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"

// compressMinBytes is the smallest answer worth compressing: below it gzip's framing costs
// about what it saves.
const compressMinBytes = 1024

// compress gzips HTML pages and JSON answers for a browser or client that takes gzip. It
// leaves out /ws (a hijacked connection with its own framing), the static assets (served
// gzipped once at start, assets.go) and /metrics (the Prometheus handler compresses itself).
func compress() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{
		MinLength: compressMinBytes,
		Skipper: func(c echo.Context) bool {
			switch c.Path() {
			case "/ws", "/static/:file", "/metrics":
				return true
			}
			return false
		},
	})
}

// csrf protects the browser's forms; the JSON API needs no token because it only accepts
// application/json, which a foreign page cannot send without a CORS preflight zpulse refuses.
// Its cookie is Secure when the browser reached zpulse over HTTPS (overHTTPS), as the session
// cookie is.
func (s *server) csrf() echo.MiddlewareFunc {
	plain, secure := csrfWith(false), csrfWith(true)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		overHTTP, overHTTPS := plain(next), secure(next)
		return func(c echo.Context) error {
			if s.overHTTPS(c.Request()) {
				return overHTTPS(c)
			}
			return overHTTP(c)
		}
	}
}

func csrfWith(secureCookie bool) echo.MiddlewareFunc {
	return middleware.CSRFWithConfig(middleware.CSRFConfig{
		TokenLookup:    "header:" + echo.HeaderXCSRFToken + ",form:_csrf",
		CookieName:     "zpulse_csrf",
		CookiePath:     "/",
		CookieHTTPOnly: true,
		CookieSecure:   secureCookie,
		CookieSameSite: http.SameSiteLaxMode,
		CookieMaxAge:   int((24 * time.Hour).Seconds()),
		// echo's own words ("missing csrf token in the form parameter") mean nothing to the
		// person who sent the form: say what happened and what to do.
		ErrorHandler: func(error, echo.Context) error {
			return echo.NewHTTPError(http.StatusForbidden, "This form could not be checked: it may be older than a day, or sent from another site: reload the page and try again")
		},
	})
}

// refuseCSRFInQuery refuses a CSRF token in the address: echo's form lookup also reads the
// query string, and a token in a URL leaks through logs, history and Referer. The token
// comes from the form body or the X-CSRF-Token header only.
func refuseCSRFInQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().URL.Query().Has("_csrf") {
			return echo.NewHTTPError(http.StatusForbidden, "the CSRF token must be sent in the form body or the X-CSRF-Token header, never in the address")
		}
		return next(c)
	}
}

// requireJSON refuses API bodies that are not application/json with a 415. A request with
// no body and no Content-Type has no media type to refuse: it goes to its handler, which
// takes it where the body is optional (a poll) and answers 400 where one is needed. First,
// for every API call, a query parameter given twice is refused (httpio.SingleQueryValues).
func requireJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := httpio.SingleQueryValues(c); err != nil {
			return err
		}
		r := c.Request()
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodDelete {
			return next(c)
		}
		if r.ContentLength == 0 && r.Header.Get(echo.HeaderContentType) == "" {
			return next(c)
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
		if err != nil || mt != echo.MIMEApplicationJSON {
			return echo.NewHTTPError(http.StatusUnsupportedMediaType, "send the body as JSON with \"Content-Type: application/json\"")
		}
		return next(c)
	}
}

// nudgeAfterChange asks the watcher for a tick as soon as a change went through, so live
// panels show it now rather than at the next poll. Every route that changes data has it
// (routes.go); it nudges just before the answer is written, when its status is below 400
// and the handler did not say the call changed nothing (httpio.MarkUnchanged).
func (s *server) nudgeAfterChange(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Before(func() {
			if c.Response().Status < http.StatusBadRequest && !httpio.IsUnchanged(c) {
				s.Watcher.Nudge()
			}
		})
		return next(c)
	}
}
