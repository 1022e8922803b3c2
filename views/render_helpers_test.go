package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"
)

// render renders a component into a parsed document, failing the test on error.
func render(t *testing.T, c templ.Component) *html.Node {
	t.Helper()
	return renderCtx(t, context.Background(), c)
}

// renderCtx renders with ctx, which carries the children of a component that takes some.
func renderCtx(t *testing.T, ctx context.Context, c templ.Component) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

// find returns the first element (depth first) for which ok holds, or nil.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

// findAll returns every element for which ok holds, in document order.
func findAll(n *html.Node, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && ok(n) {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, findAll(c, ok)...)
	}
	return out
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// has matches an element with attribute name set to val.
func has(name, val string) func(*html.Node) bool {
	return func(n *html.Node) bool { v, ok := attr(n, name); return ok && v == val }
}

// tag matches elements by tag name.
func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// text is an element's text with runs of white space collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// must returns the element ok finds under n, failing the test when there is none.
func must(t *testing.T, n *html.Node, what string, ok func(*html.Node) bool) *html.Node {
	t.Helper()
	el := find(n, ok)
	if el == nil {
		t.Fatalf("no %s in the rendered HTML", what)
	}
	return el
}

// wantText fails the test unless el's text contains every part.
func wantText(t *testing.T, el *html.Node, parts ...string) {
	t.Helper()
	got := text(el)
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Errorf("text %q does not contain %q", got, p)
		}
	}
}
