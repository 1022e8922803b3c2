package web

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPI is the contract of the JSON API: every route under /api/v1, its bodies, answers and
// error codes, as OpenAPI 3.1. It is written by hand next to the handlers it describes, and
// openapi_test.go holds the two to each other: every API route documented, every documented
// path served, every answer of the API tests valid against it.
//
//go:embed openapi.json
var openAPI []byte

// serveOpenAPI answers GET /api/v1/openapi.json, for client generators and people.
func serveOpenAPI(c echo.Context) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPI)
}
