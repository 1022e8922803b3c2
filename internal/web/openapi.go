package web

import (
	"bytes"
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

// openAPIServer is the document's one server URL, relative to the host; served under a base
// path, the document says so.
const openAPIServer = `"url": "/api/v1"`

// serveOpenAPI answers GET /api/v1/openapi.json, for client generators and people.
func serveOpenAPI(c echo.Context) error {
	doc := openAPI
	if base := basePath(c); base != "" {
		doc = bytes.Replace(doc, []byte(openAPIServer), []byte(`"url": "`+base+`/api/v1"`), 1)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
}
