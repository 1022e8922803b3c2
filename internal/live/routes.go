package live

import (
	"slices"
)

// Watch is what a topic's read touches in its source (Redis): exact keys and key prefixes.
// A change to any of them may change the topic; a change to anything else cannot.
type Watch struct {
	Keys     []string
	Prefixes []string
}

// Router says what each topic watches (internal/panels declares it per panel): Changed routes
// changed keys to the subscribed topics through it.
type Router interface {
	Watches(topic string) Watch
}

// keyIndex routes keys to the topics that watch them: exact keys in a map, prefixes in a map
// per distinct prefix length, so a key costs one lookup plus one per length (a handful: the
// prefixes are the key layout's families), whatever the number of topics.
type keyIndex struct {
	exact    map[string][]string
	prefixes map[string][]string
	lengths  []int // the distinct prefix lengths, ascending
}

// newKeyIndex indexes what each of topics watches.
func newKeyIndex(r Router, topics []string) *keyIndex {
	ix := &keyIndex{exact: map[string][]string{}, prefixes: map[string][]string{}}
	for _, t := range topics {
		w := r.Watches(t)
		for _, k := range w.Keys {
			ix.exact[k] = append(ix.exact[k], t)
		}
		for _, p := range w.Prefixes {
			if _, ok := ix.prefixes[p]; !ok && !slices.Contains(ix.lengths, len(p)) {
				ix.lengths = append(ix.lengths, len(p))
			}
			ix.prefixes[p] = append(ix.prefixes[p], t)
		}
	}
	slices.Sort(ix.lengths)
	return ix
}

// route adds to into every topic that watches key.
func (ix *keyIndex) route(key string, into map[string]bool) {
	for _, t := range ix.exact[key] {
		into[t] = true
	}
	for _, n := range ix.lengths {
		if n > len(key) {
			break
		}
		for _, t := range ix.prefixes[key[:n]] {
			into[t] = true
		}
	}
}
