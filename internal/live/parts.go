package live

import (
	"bytes"
	"regexp"

	"golang.org/x/net/html"
)

// A fragment's parts are what the hub compares, so that a change sends only the elements it
// touched. The fragment's top-level elements are parts (each carries the id of the element it
// replaces on the page: htmx's ws extension swaps every top-level element of a message out of
// band, by its id), and so is every element inside them that carries both an id and the
// attribute data-part: sent alone, at the top level of a message, it replaces the element of
// its id. (The marker is not hx-swap-oob itself, which htmx would also act on inside pages
// that forms and the player lookup fetch.) Parts nest: a part's skeleton is its markup
// with each of its own parts cut out, so a change inside a row is sent as the row, and a row
// added or removed (the table's skeleton changed) as the smallest part that holds the table.
// It works on the rendered bytes only: it knows no panel and no template.

// part is one element of a fragment that can be sent on its own.
type part struct {
	id         string
	start, end int    // the element's bytes in the fragment: from its start tag to its end tag
	html       []byte // fragment[start:end]
	skeleton   []byte // html with each child part replaced by its id
	children   []*part
	row        bool // a <tr>: the HTML parser takes it only before any other element of a message
}

// voidElements have no end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// parseParts reads a fragment into a root part (no id) whose children are its top-level
// elements. Markup it cannot follow (an end tag that closes nothing open) is kept in the
// enclosing skeleton, so at worst a change is sent whole.
func parseParts(fragment []byte) *part {
	root := &part{end: len(fragment), html: fragment}
	type open struct {
		name string
		p    *part // nil: not a part
	}
	stack := []open{}
	parent := func() *part {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].p != nil {
				return stack[i].p
			}
		}
		return root
	}
	z := html.NewTokenizer(bytes.NewReader(fragment))
	pos := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := len(z.Raw())
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			var id string
			oob := false
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "id":
					id = string(v)
				case "data-part":
					oob = true
				}
			}
			var p *part
			if id != "" && (len(stack) == 0 || oob) {
				p = &part{id: id, start: pos, row: string(name) == "tr"}
			}
			if tt == html.SelfClosingTagToken || voidElements[string(name)] {
				if p != nil {
					p.end = pos + raw
					parent().children = append(parent().children, p)
				}
				break
			}
			stack = append(stack, open{string(name), p})
		case html.EndTagToken:
			name, _ := z.TagName()
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].name != string(name) {
					continue
				}
				closed := stack[i:]
				stack = stack[:i]
				for j := len(closed) - 1; j >= 0; j-- { // unclosed ones inside end here too
					p := closed[j].p
					if p == nil {
						continue
					}
					p.end = pos + raw
					into := parent()
					for k := j - 1; k >= 0; k-- {
						if closed[k].p != nil {
							into = closed[k].p
							break
						}
					}
					into.children = append(into.children, p)
				}
				break
			}
		}
		pos += raw
	}
	fill(root, fragment)
	return root
}

// fill sets the html and skeleton of p and its children. Children were appended as they
// closed, which is document order for siblings.
func fill(p *part, fragment []byte) {
	p.html = fragment[p.start:p.end]
	var sk []byte
	at := p.start
	for _, c := range p.children {
		fill(c, fragment)
		sk = append(sk, fragment[at:c.start]...)
		sk = append(sk, 0)
		sk = append(sk, c.id...)
		sk = append(sk, 0)
		at = c.end
	}
	p.skeleton = append(sk, fragment[at:p.end]...)
}

// changedParts returns the parts of next that differ from prev, each the smallest part that
// holds its change, or whole = true when the fragment must be sent whole (no prev, or its
// top-level elements changed). No parts and whole false: nothing changed.
func changedParts(prev, next *part) (parts []*part, whole bool) {
	if prev == nil || !bytes.Equal(prev.skeleton, next.skeleton) {
		return nil, true
	}
	var walk func(prev, next *part)
	walk = func(prev, next *part) {
		for i, c := range next.children {
			old := prev.children[i] // equal skeletons: the same parts in the same places
			switch {
			case bytes.Equal(old.html, c.html):
			case bytes.Equal(old.skeleton, c.skeleton):
				walk(old, c)
			default:
				parts = append(parts, c)
			}
		}
	}
	walk(prev, next)
	return parts, false
}

// partMessages joins changed parts into the messages that carry them, rows first. The
// browser parses a message as a fragment of a body, where a <tr> is taken only before any
// other element, and an element after a <tr> that holds table markup is torn apart: rows and
// such elements go in two messages, else all in one.
func partMessages(parts []*part) [][]byte {
	var rows, other []byte
	for _, p := range parts {
		if p.row {
			rows = append(rows, p.html...)
		} else {
			other = append(other, p.html...)
		}
	}
	switch {
	case len(rows) == 0:
		return [][]byte{other}
	case len(other) == 0:
		return [][]byte{rows}
	case tableMarkup.Match(other):
		return [][]byte{rows, other}
	default:
		return [][]byte{append(rows, other...)}
	}
}

// tableMarkup finds a start tag of a table's parts.
var tableMarkup = regexp.MustCompile(`(?i)<(table|caption|colgroup|col|thead|tbody|tfoot|tr|td|th)[\s/>]`)
