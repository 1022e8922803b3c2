package httpio

import "github.com/labstack/echo/v4"

// unchangedKey marks a request whose call changed nothing (see MarkUnchanged).
const unchangedKey = "zpulse.unchanged"

// MarkUnchanged tells the watcher's nudge after a change (web's nudgeAfterChange) that this
// successful call changed nothing (a poll that found no job), so the watcher is not woken.
func MarkUnchanged(c echo.Context) { c.Set(unchangedKey, true) }

// IsUnchanged says whether the call said it changed nothing (MarkUnchanged).
func IsUnchanged(c echo.Context) bool { return c.Get(unchangedKey) != nil }
