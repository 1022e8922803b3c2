package web

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The paths of the pages of one board, queue or limiter.
func boardPath(board string) string     { return "/boards/" + url.PathEscape(board) }
func queuePath(queue string) string     { return "/queues/" + url.PathEscape(queue) }
func limiterPath(limiter string) string { return "/limiters/" + url.PathEscape(limiter) }

// openByName answers a list page's "open by name" box (?board=NAME on /boards): it sends the
// browser to that page, or refuses a name validate refuses. asked is false when the query
// names nothing to open. (Not a route of its own: any name under /limiters/ is a limiter,
// "open" included.)
func openByName(c echo.Context, kind string, validate func(string) error, path func(string) string) (asked bool, err error) {
	values, asked := c.QueryParams()[kind]
	if !asked {
		return false, nil
	}
	name := strings.TrimSpace(values[0])
	if err := validate(name); err != nil {
		return true, err
	}
	return true, seeOther(c, path(name))
}

// validName checks the name of a board, queue or lock to open (domain.ValidateKeyName: any
// existing key shows, whoever wrote it).
func validName(kind string) func(string) error {
	return func(name string) error { return domain.ValidateKeyName(kind, name) }
}
