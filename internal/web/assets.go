package web

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/static"
)

// asset serves a built file from the embedded static package. Under its hashed name (the one
// pages link to) its content never changes, so the browser keeps it for a year without asking
// again; under its plain name it is checked on every use. Text files go out gzipped when the
// browser takes gzip, compressed once at start.
func (s *server) asset(c echo.Context) error {
	a, hashed := static.Lookup(c.Param("file"))
	if a == nil {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	if hashed {
		h.Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		h.Set(echo.HeaderCacheControl, "no-cache")
	}
	h.Set(echo.HeaderContentType, a.Type)
	body, etag := a.Body, a.Hashed
	if a.Gzip != nil {
		h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
		if acceptsGzip(c.Request().Header.Get(echo.HeaderAcceptEncoding)) {
			h.Set(echo.HeaderContentEncoding, "gzip")
			body, etag = a.Gzip, a.Hashed+".gz"
		}
	}
	h.Set("ETag", `"`+etag+`"`)
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(body))
	return nil
}

// acceptsGzip reads an Accept-Encoding header: gzip listed, and not with q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
