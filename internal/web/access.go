package web

import (
	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// access is what a mutating route declares next to itself in routes.go: the role it needs
// and the dotted name of its action (board.add_points), which the audit trail records.
type access struct {
	role   domain.Role
	action string
}

const accessKey = "zpulse.access"

// accessOf is the declaration of the route the request took; ok is false for a route
// without one (a read).
func accessOf(c echo.Context) (access, bool) {
	a, ok := c.Get(accessKey).(access)
	return a, ok
}

// declare returns the declaration of a page's (page) or the API's mutating routes: given the
// role and the action, the route's middleware: the audit trail's record of the request once
// it is answered, accepted or refused (auditTrail.around), the role check (requireRole, which
// records the declaration in the request), then, for a change, the watcher's nudge.
func (s *server) declare(page bool) func(role domain.Role, action string) []echo.MiddlewareFunc {
	return func(role domain.Role, action string) []echo.MiddlewareFunc {
		chain := []echo.MiddlewareFunc{s.audit.around(action), s.requireRole(access{role: role, action: action}, page)}
		if role > domain.RoleNone {
			chain = append(chain, s.nudgeAfterChange)
		}
		return chain
	}
}

// readAs is the role check of a read that needs a role (the tokens' list): no action, as it
// changes nothing.
func (s *server) readAs(role domain.Role, page bool) echo.MiddlewareFunc {
	return s.requireRole(access{role: role}, page)
}
