package views

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/static"
)

type basePathKey struct{}

// WithBasePath gives the components rendered with ctx the path prefix zpulse is served
// under ("/zpulse"; "" is the root), for u and asset.
func WithBasePath(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, basePathKey{}, base)
}

// u is the URL of one of zpulse's own paths ("/boards") as the browser must ask it: the one
// way components write a link, form action, htmx or websocket URL, so --base-path holds.
func u(ctx context.Context, path string) string {
	base, _ := ctx.Value(basePathKey{}).(string)
	return base + path
}

// asset is the URL of a built static file under its content-hashed name, which browsers keep
// for good (internal/web/assets.go).
func asset(ctx context.Context, name string) templ.SafeURL {
	return templ.SafeURL(u(ctx, "/static/"+static.Path(name)))
}
