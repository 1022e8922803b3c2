package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/web/httpio"
)

// AuditTrail answers a page of the audit trail, newest first, with the query's filters.
func (h *Handlers) AuditTrail(c echo.Context) error {
	f, err := httpio.AuditQuery(c)
	if err != nil {
		return err
	}
	page, err := h.Trail.List(c.Request().Context(), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}
