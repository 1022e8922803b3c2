package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// readMethods are the methods of a read: HEAD answers exactly what GET would, and net/http
// drops the body, so every GET route is registered for both (get).
var readMethods = []string{http.MethodGet, http.MethodHead}

// knownMethods are the methods a path may be asked with and answered 405 when it does not
// serve them, in the order an Allow header lists them.
var knownMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// methodNotAllowedRoute names the routes allowMethods adds, so a walk over e.Routes() can
// tell them from the real ones.
const methodNotAllowedRoute = "zpulse.method_not_allowed"

// matcher is an *echo.Echo or an *echo.Group.
type matcher interface {
	Match(methods []string, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) []*echo.Route
}

// get registers a read for GET and HEAD alike.
func get(r matcher, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) {
	r.Match(readMethods, path, h, m...)
}

// allowMethods answers a known path asked with another method with 405 and an Allow header
// (OPTIONS with 204 and the same header), instead of echo's 404 from the groups' catch-all
// routes. The handlers are added to the Echo itself, outside the groups, so no group
// middleware (CSRF, JSON body, sign-in) answers first: the method is the first thing wrong.
// Called once, after every route is registered.
func allowMethods(e *echo.Echo) {
	allowed := map[string][]string{}
	var paths []string
	for _, r := range e.Routes() {
		if strings.Contains(r.Path, "*") || !slices.Contains(knownMethods, r.Method) {
			continue // catch-alls and echo's not-found routes are not known paths
		}
		if _, seen := allowed[r.Path]; !seen {
			paths = append(paths, r.Path)
		}
		allowed[r.Path] = append(allowed[r.Path], r.Method)
	}
	for _, path := range paths {
		var allow []string
		for _, m := range knownMethods {
			if slices.Contains(allowed[path], m) {
				allow = append(allow, m)
			}
		}
		header := strings.Join(allow, ", ")
		for _, m := range knownMethods {
			if !slices.Contains(allow, m) {
				e.Add(m, path, methodNotAllowed(header)).Name = methodNotAllowedRoute
			}
		}
		e.Add(http.MethodOptions, path, func(c echo.Context) error {
			c.Response().Header().Set(echo.HeaderAllow, header)
			return c.NoContent(http.StatusNoContent)
		}).Name = methodNotAllowedRoute
	}
}

// methodNotAllowed answers a method the path does not serve: the error envelope under /api,
// the error page elsewhere (handleError), with the methods it does serve.
func methodNotAllowed(allow string) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderAllow, allow)
		return echo.NewHTTPError(http.StatusMethodNotAllowed, "this address answers "+allow+" only")
	}
}
