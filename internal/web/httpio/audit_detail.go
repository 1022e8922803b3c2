package httpio

import (
	"fmt"

	"github.com/labstack/echo/v4"
)

const auditDetailKey = "zpulse.audit.detail"

// AuditDetail says, for the audit trail, what a change did in a few words ("+7 points to p1
// (score 12)", "requeued 37 of 37"). Never a payload, a token, a lock token or a password.
func AuditDetail(c echo.Context, format string, args ...any) {
	c.Set(auditDetailKey, fmt.Sprintf(format, args...))
}

// AuditDetailOf is what the handler said with AuditDetail, or "".
func AuditDetailOf(c echo.Context) string {
	s, _ := c.Get(auditDetailKey).(string)
	return s
}
