package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// basePathKey holds the request's base path in the echo context (stripBasePath).
const basePathKey = "zpulse.base_path"

// stripBasePath serves zpulse under a path prefix behind a proxy: a request below the prefix
// is routed without it, so routes.go and the handlers know only their own paths; anything
// else is not zpulse's (404). Every URL zpulse writes goes back through urlFor, and views
// get the prefix through their context (render).
func stripBasePath(base string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(basePathKey, base)
			if base == "" {
				return next(c)
			}
			r := c.Request()
			rest, ok := strings.CutPrefix(r.URL.Path, base)
			if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
				return echo.ErrNotFound
			}
			if rest == "" {
				rest = "/"
			}
			r.URL.Path = rest
			if r.URL.RawPath != "" {
				r.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, base)
			}
			return next(c)
		}
	}
}

// basePath is the prefix the request came in under.
func basePath(c echo.Context) string {
	base, _ := c.Get(basePathKey).(string)
	return base
}

// urlFor is the URL of one of zpulse's own paths ("/boards/x") as the browser must ask it.
func urlFor(c echo.Context, path string) string { return basePath(c) + path }

// refererPath is the page the request came from as one of zpulse's own paths, "/" when it
// did not come from one.
func refererPath(c echo.Context) string {
	p := localPath(c.Request().Referer())
	if base := basePath(c); base != "" {
		rest, ok := strings.CutPrefix(p, base)
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, "?")) {
			return "/"
		}
		p = "/" + strings.TrimPrefix(rest, "/")
	}
	return p
}

// seeOther answers a plain form post: back to one of zpulse's pages with a GET
// (post/redirect/get).
func seeOther(c echo.Context, path string) error {
	return c.Redirect(http.StatusSeeOther, urlFor(c, path))
}
