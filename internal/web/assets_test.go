package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/zpulse/zpulse/static"
)

// Pages link every asset under its content-hashed name, which is served for good
// (immutable), gzipped to browsers that take it; the plain name is still served, but
// checked on every use.
func TestAssetsAreHashedCachedAndCompressed(t *testing.T) {
	t.Parallel()
	s := newFakeServer(t, "", nil, nil)
	_, page := s.get(t, "/")
	links := regexp.MustCompile(`(?:href|src)="(/static/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(links) < 5 {
		t.Fatalf("the page links %d assets, want the stylesheet, three scripts and the icon", len(links))
	}
	for _, name := range []string{"app.css", "htmx.min.js", "ws.js", "app.js", "favicon.svg"} {
		if !strings.Contains(page, `"/static/`+static.Path(name)+`"`) || static.Path(name) == name {
			t.Errorf("the page does not link %s by its hashed name %s", name, static.Path(name))
		}
	}
	for _, l := range links {
		path := l[1]
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip, br")
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s: %d Cache-Control %q", path, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		a, hashed := static.Lookup(strings.TrimPrefix(path, "/static/"))
		if a == nil || !hashed {
			t.Fatalf("%s is not a hashed asset name", path)
		}
		if a.Gzip == nil {
			continue
		}
		if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Content-Encoding %q Vary %q, want gzip", path, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		plain, _ := io.ReadAll(zr)
		if !bytes.Equal(plain, a.Body) || len(body) >= len(a.Body) {
			t.Errorf("%s: gzip body does not unpack to the asset or is not smaller (%d >= %d)", path, len(body), len(a.Body))
		}
	}
	// The CSS is the built, minified stylesheet, big enough to style the pages.
	if css, _ := static.Lookup("app.css"); css == nil || len(css.Body) < 10_000 || bytes.Count(css.Body, []byte("\n")) > 5 {
		t.Errorf("static/dist/app.css is missing or not minified")
	}
	status, _, h := s.do(t, http.MethodGet, "/static/app.css", "", "")
	if status != http.StatusOK || h.Get("Cache-Control") != "no-cache" {
		t.Errorf("/static/app.css: %d Cache-Control %q, want 200 no-cache", status, h.Get("Cache-Control"))
	}
	if status, _ := s.get(t, "/static/app.0000000000.css"); status != http.StatusNotFound {
		t.Errorf("an unknown hash: %d, want 404", status)
	}
	// Revalidation of the plain name answers 304.
	etag := h.Get("ETag")
	if status, _, _ := s.do(t, http.MethodGet, "/static/app.css", "", "", "If-None-Match", etag); status != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %d, want 304", etag, status)
	}
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]bool{"gzip": true, "br, gzip;q=0.5": true, "GZIP": true, "gzip;q=0": false, "br": false, "": false, "identity": false} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v", header, got)
		}
	}
}
