// Package static holds the browser assets embedded into the binary: the built stylesheet and
// the pinned htmx files copied from npm by `make generate` (static/dist, not committed).
package static

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// FS serves the built assets at their path below dist/ (e.g. "app.css").
var FS, _ = fs.Sub(dist, "dist")

// Built reports whether `make generate` has written the stylesheet; without it pages render
// unstyled, and the server says so in its log.
func Built() bool {
	_, err := fs.Stat(FS, "app.css")
	return err == nil
}
