package domain

import (
	"math/bits"
	"strings"
)

// Sources never overlap: no key string may be one that two sources' layouts both name, or a
// "try" on one source's limiter could write another's board (a sliding log svc:rank:{client}
// beside a board svc:rank:{yyyymmdd}, tried with a date as the client). A layout names a
// regular set of keys: its literal bytes, each token a run of the bytes it renders as
// ({yyyymmdd} eight digits, {window_start} one digit or more, {client} one byte or more of
// any value: what a view's SCAN pattern reads, wider than a try writes), and a lock source's
// prefix followed by anything. Two layouts overlap exactly when those two sets meet, which
// Overlap decides with the product of the two patterns (no approximation: every pair of
// positions is visited once), and answers with the shortest key both could name.

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) add(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		b[c>>6] |= 1 << (c & 63)
	}
}

// first is a byte of b ∩ o, preferring a letter or digit (for a readable example), and false
// when they share none.
func (b byteSet) first(o byteSet) (byte, bool) {
	var both byteSet
	for i := range b {
		both[i] = b[i] & o[i]
	}
	for _, c := range []byte("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_:.") {
		if both[c>>6]&(1<<(c&63)) != 0 {
			return c, true
		}
	}
	for i, w := range both {
		if w != 0 {
			return byte(i*64 + bits.TrailingZeros64(w)), true
		}
	}
	return 0, false
}

// patternItem is one position of a layout's pattern: one byte of set, or (star) any number of
// them.
type patternItem struct {
	set  byteSet
	star bool
}

func literal(c byte) patternItem {
	var it patternItem
	it.set.add(c, c)
	return it
}

var (
	digitItem = func() patternItem { var it patternItem; it.set.add('0', '9'); return it }()
	anyItem   = func() patternItem { var it patternItem; it.set.add(0, 255); return it }()
)

// tokenPatterns are what each token renders as: a date token's fixed shape (d a digit), a
// window start's digits, a client's any bytes ("+" one or more).
var tokenPatterns = map[string]string{
	"{yyyymmdd}": "dddddddd", "{yyyy-mm-dd}": "dddd-dd-dd", "{yyyy-Www}": "dddd-Wdd", "{yyyy-mm}": "dddd-dd",
	"{window_start}": "d+", "{client}": "*+",
}

// pattern is the layout's key set as a sequence of items.
func (s Source) pattern() []patternItem {
	var out []patternItem
	key := s.Key
	for i := 0; i < len(key); {
		tok := ""
		for _, t := range sourceTokens {
			if strings.HasPrefix(key[i:], t) {
				tok = t
			}
		}
		if tok == "" {
			out = append(out, literal(key[i]))
			i++
			continue
		}
		var prev patternItem
		for _, c := range []byte(tokenPatterns[tok]) {
			switch c {
			case 'd':
				prev = digitItem
			case '*':
				prev = anyItem
			case '+':
				prev.star = true
			default:
				prev = literal(c)
			}
			out = append(out, prev)
		}
		i += len(tok)
	}
	if s.Kind == SourceLock {
		star := anyItem
		star.star = true
		out = append(out, star)
	}
	return out
}

// Overlap says whether some key is named by both layouts, and the shortest such key.
func (s Source) Overlap(o Source) (example string, ok bool) {
	a, b := s.pattern(), o.pattern()
	type state struct{ i, j int }
	type step struct {
		from     state
		c        byte
		consumed bool // false: an ε-step, leaving a starred item without a byte
	}
	start := state{}
	seen := map[state]step{start: {}}
	queue := []state{start}
	push := func(n state, st step) {
		if _, ok := seen[n]; !ok {
			seen[n] = st
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur.i == len(a) && cur.j == len(b) {
			var out []byte
			for st := cur; st != start; st = seen[st].from {
				if p := seen[st]; p.consumed {
					out = append(out, p.c)
				}
			}
			for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
				out[l], out[r] = out[r], out[l]
			}
			return string(out), true
		}
		if cur.i < len(a) && a[cur.i].star {
			push(state{cur.i + 1, cur.j}, step{from: cur})
		}
		if cur.j < len(b) && b[cur.j].star {
			push(state{cur.i, cur.j + 1}, step{from: cur})
		}
		if cur.i < len(a) && cur.j < len(b) {
			// One byte both items take. When both are starred the pair stays where it is: a
			// loop, which no shortest way to the end needs.
			if c, ok := a[cur.i].set.first(b[cur.j].set); ok {
				n := cur
				if !a[cur.i].star {
					n.i++
				}
				if !b[cur.j].star {
					n.j++
				}
				if n != cur {
					push(n, step{from: cur, c: c, consumed: true})
				}
			}
		}
	}
	return "", false
}

// SourceOverlap is a pair of saved sources whose layouts could name the same key (saved
// before overlaps were refused): Example is one such key.
type SourceOverlap struct {
	Source  string `json:"source"`
	Other   string `json:"other"`
	Example string `json:"example"`
}

// SourceOverlaps lists every pair of sources in all that overlap, each pair once (Source
// before Other by the order of all).
func SourceOverlaps(all []Source) []SourceOverlap {
	var out []SourceOverlap
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if ex, ok := all[i].Overlap(all[j]); ok {
				out = append(out, SourceOverlap{Source: all[i].Name, Other: all[j].Name, Example: ex})
			}
		}
	}
	return out
}

// CheckOverlaps refuses s when its layout could name a key one of the other saved sources
// (any of another name) names. Returns ECONFLICT naming the source, with an example key.
func (s Source) CheckOverlaps(saved []Source) error {
	for _, o := range saved {
		if o.Name == s.Name {
			continue
		}
		if ex, ok := s.Overlap(o); ok {
			return FieldErrorf("key", ECONFLICT, "key %q overlaps the source %q (%s %q): both could name the key %q, and a source may only name keys no other source names; choose a layout whose fixed parts differ, or change or delete %q first",
				clip(s.Key), o.Name, o.Kind, clip(o.Key), clip(ex), o.Name)
		}
	}
	return nil
}
