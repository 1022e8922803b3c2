// Package static holds the browser assets embedded into the binary: the built, minified
// stylesheet, the pinned htmx files and the hand-written script (static/dist, committed like
// the *_templ.go files so `go install` serves a styled product; `make test` fails when they
// are stale). Each file is also known by a name holding a hash of its content, so browsers
// may keep it for good, and text files are compressed once at start.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// FS serves the built assets at their path below dist/ (e.g. "app.css").
var FS, _ = fs.Sub(dist, "dist")

// Asset is one built file, ready to serve.
type Asset struct {
	Name   string // as built, "app.css"
	Hashed string // with a hash of the content, "app.3f2a1c9d0e.css"
	Type   string // Content-Type
	Body   []byte
	Gzip   []byte // Body gzipped, nil when that does not make it smaller
}

// manifest knows every asset by its plain and its hashed name.
var manifest = buildManifest()

func buildManifest() map[string]*Asset {
	m := map[string]*Asset{}
	_ = fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		body, err := fs.ReadFile(FS, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(name)
		a := &Asset{
			Name:   name,
			Hashed: strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:5]) + ext,
			Type:   mime.TypeByExtension(ext),
			Body:   body,
		}
		if a.Type == "" {
			a.Type = "application/octet-stream"
		}
		if z := gzipped(body); len(z) < len(body) {
			a.Gzip = z
		}
		m[a.Name], m[a.Hashed] = a, a
		return nil
	})
	return m
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// Path is the hashed name of a built asset ("app.css" → "app.3f2a1c9d0e.css"), the name
// pages link to; the plain name when there is no such asset.
func Path(name string) string {
	if a, ok := manifest[name]; ok {
		return a.Hashed
	}
	return name
}

// Lookup finds an asset by its hashed or plain name; hashed says which, so the caller knows
// whether the content behind the name can never change.
func Lookup(name string) (a *Asset, hashed bool) {
	a, ok := manifest[name]
	if !ok {
		return nil, false
	}
	return a, name == a.Hashed
}

// Built reports whether the stylesheet is there; without it pages render unstyled, and the
// server says so in its log.
func Built() bool {
	_, ok := manifest["app.css"]
	return ok
}
