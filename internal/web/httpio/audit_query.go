package httpio

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The audit trail's query inputs.
var (
	AuditLimitInput = Whole{field: "limit", min: 1, max: domain.AuditPageMax}
	SinceInput      = Moment{"since"}
	UntilInput      = Moment{"until"}
)

// AuditQuery reads the audit trail's filters from a page's or the API's query: limit, cursor,
// actor, action, target, since and until (RFC 3339).
func AuditQuery(c echo.Context) (domain.AuditFilter, error) {
	f := domain.AuditFilter{Actor: c.QueryParam("actor"), Action: c.QueryParam("action"), Target: c.QueryParam("target"),
		Cursor: c.QueryParam("cursor")}
	var err error
	if f.Limit, err = AuditLimitInput.Query(c, domain.AuditPageDefault); err != nil {
		return f, err
	}
	if f.Since, err = SinceInput.Query(c); err != nil {
		return f, err
	}
	if f.Until, err = UntilInput.Query(c); err != nil {
		return f, err
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Until.Before(f.Since) {
		return f, domain.FieldErrorf("until", domain.EINVALID, "until must not be before since")
	}
	return f, nil
}

// Query reads the input from the query parameter of its name; the zero time when it is not
// given.
func (m Moment) Query(c echo.Context) (time.Time, error) {
	if s := c.QueryParam(m.field); s != "" {
		return m.Parse(s)
	}
	return time.Time{}, nil
}
