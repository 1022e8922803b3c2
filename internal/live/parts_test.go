package live

import (
	"strings"
	"testing"
)

// panel is a fragment shaped like a live panel: a head and a table whose rows are parts.
func panel(head string, rows ...string) []byte {
	var b strings.Builder
	b.WriteString(`<section id="p" class="card"><div id="p-head" data-part><span>` + head + `</span><br><input value="x"></div>`)
	b.WriteString(`<table id="p-t" data-part><tbody>`)
	for i, r := range rows {
		b.WriteString(`<tr id="p-r` + string(rune('1'+i)) + `" data-part><td>` + r + `</td></tr>`)
	}
	b.WriteString(`</tbody></table></section>`)
	return []byte(b.String())
}

func changed(t *testing.T, prev, next []byte) (msgs []string, whole bool) {
	t.Helper()
	var p *part
	if prev != nil {
		p = parseParts(prev)
	}
	parts, whole := changedParts(p, parseParts(next))
	for _, m := range partMessages(parts) {
		msgs = append(msgs, string(m))
	}
	return msgs, whole
}

func TestChangedPartsAreTheSmallestThatHoldEachChange(t *testing.T) {
	t.Parallel()
	base := panel("3 players", "alice", "bob", "carol")
	for _, tc := range []struct {
		name  string
		next  []byte
		whole bool
		msgs  []string
	}{
		{"nothing changed", panel("3 players", "alice", "bob", "carol"), false, nil},
		{"one row", panel("3 players", "alice", "dave", "carol"), false,
			[]string{`<tr id="p-r2" data-part><td>dave</td></tr>`}},
		{"rows and the head: rows first, in one message", panel("4 players", "alice", "bob", "dave"), false,
			[]string{`<tr id="p-r3" data-part><td>dave</td></tr><div id="p-head" data-part><span>4 players</span><br><input value="x"></div>`}},
		{"rows and a part that holds a table: two messages", []byte(strings.Replace(string(panel("3 players", "alice", "bob", "dave")), "<span>3 players</span>", "<table><tr><td>3</td></tr></table>", 1)), false,
			[]string{`<tr id="p-r3" data-part><td>dave</td></tr>`, `<div id="p-head" data-part><table><tr><td>3</td></tr></table><br><input value="x"></div>`}},
		{"a row more: the table", panel("3 players", "alice", "bob", "carol", "dave"), false,
			[]string{string(parseParts(panel("", "alice", "bob", "carol", "dave")).children[0].children[1].html)}},
		{"a top-level element's own markup: that element", []byte(strings.Replace(string(base), `class="card"`, `class="card x"`, 1)), false,
			[]string{strings.Replace(string(base), `class="card"`, `class="card x"`, 1)}},
		{"another top-level element: whole", append(append([]byte{}, base...), `<div id="q"></div>`...), true, nil},
	} {
		msgs, whole := changed(t, base, tc.next)
		if whole != tc.whole || strings.Join(msgs, "|") != strings.Join(tc.msgs, "|") {
			t.Errorf("%s: got whole=%v %q, want whole=%v %q", tc.name, whole, msgs, tc.whole, tc.msgs)
		}
	}
	if _, whole := changed(t, nil, base); !whole {
		t.Error("a first fragment must be sent whole")
	}
}

// Text, markup the parser cannot follow, and elements without an id are kept in their
// part's skeleton: a change there sends that part (or everything) whole, never nothing.
func TestChangedPartsNeverMissAChange(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{
		{`plain text`, `plain texts`},
		{`<div id="a"><p>x</p></span></div>`, `<div id="a"><p>y</p></span></div>`},
		{`<div id="a"><p data-part>x</p></div>`, `<div id="a"><p data-part>y</p></div>`},
		{`<div id="a"><p id="b" data-part>x</div>`, `<div id="a"><p id="b" data-part>y</div>`},
		{`<div id="a"><svg><rect id="r" data-part width="1"/></svg></div>`, `<div id="a"><svg><rect id="r" data-part width="2"/></svg></div>`},
	} {
		msgs, whole := changed(t, []byte(pair[0]), []byte(pair[1]))
		if !whole && len(msgs) == 0 {
			t.Errorf("%q → %q: no change found", pair[0], pair[1])
		}
		for _, m := range msgs {
			if !strings.Contains(pair[1], m) {
				t.Errorf("%q → %q: sent %q, not a piece of the new fragment", pair[0], pair[1], m)
			}
		}
	}
}

// Over a websocket: the first subscriber gets the fragment whole, then the changed row only;
// a publish that changes nothing sends nothing; a later subscriber starts from the whole
// current fragment.
func TestHubSendsOnlyChangedParts(t *testing.T) {
	t.Parallel()
	hub, srv, _ := newHubServer(t)
	first := dial(t, srv, "b")
	waitTopics(t, hub, 1)
	hub.Publish("b", panel("2 players", "alice", "bob"))
	if got := read(t, first); got != string(panel("2 players", "alice", "bob")) {
		t.Fatalf("first frame %q, want the whole fragment", got)
	}
	hub.Publish("b", panel("2 players", "alice", "bob")) // equal: nothing
	hub.Publish("b", panel("2 players", "alice", "carol"))
	if got, want := read(t, first), `<tr id="p-r2" data-part><td>carol</td></tr>`; got != want {
		t.Errorf("after one row changed: got %q, want %q", got, want)
	}
	later := dial(t, srv, "b")
	if got := read(t, later); got != string(panel("2 players", "alice", "carol")) {
		t.Errorf("a new subscriber got %q, want the whole current fragment", got)
	}
}
