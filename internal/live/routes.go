package live

import (
	"context"
	"maps"
	"slices"
)

// Watch is what a topic's read touches in its source (Redis): exact keys and key prefixes.
// A change to any of them may change the topic; a change to anything else cannot.
type Watch struct {
	Keys     []string
	Prefixes []string
}

// Router says what each topic watches (internal/panels declares it per panel): Changed routes
// changed keys to the subscribed topics through it. A read it makes (an adopted source's
// layout) is bounded by ctx, Changed's caller's.
type Router interface {
	Watches(ctx context.Context, topic string) Watch
}

// keyIndex routes keys to the topics that watch them: exact keys in a map, prefixes in a map
// per distinct prefix length, so a key costs one lookup plus one per length (a handful: the
// prefixes are the key layout's families), whatever the number of topics. It follows the
// subscribed topics by difference (sync), so a viewer coming to a topic others watch costs
// nothing and a new topic costs its own watch.
type keyIndex struct {
	router   Router
	watched  map[string]Watch // topic -> what it watches
	exact    map[string][]string
	prefixes map[string][]string
	lengths  map[int]int // prefix length -> prefixes of that length
	sorted   []int       // the keys of lengths, ascending
}

func newKeyIndex(r Router) *keyIndex {
	return &keyIndex{router: r, watched: map[string]Watch{}, exact: map[string][]string{},
		prefixes: map[string][]string{}, lengths: map[int]int{}}
}

// sync makes the index that of topics: it adds the topics it lacks and drops those gone.
func (ix *keyIndex) sync(ctx context.Context, topics []string) {
	now := make(map[string]bool, len(topics))
	for _, t := range topics {
		now[t] = true
		if _, ok := ix.watched[t]; !ok {
			ix.add(t, ix.router.Watches(ctx, t))
		}
	}
	for t, w := range ix.watched {
		if !now[t] {
			ix.remove(t, w)
		}
	}
}

func (ix *keyIndex) add(topic string, w Watch) {
	ix.watched[topic] = w
	for _, k := range w.Keys {
		ix.exact[k] = append(ix.exact[k], topic)
	}
	for _, p := range w.Prefixes {
		if _, ok := ix.prefixes[p]; !ok {
			ix.lengths[len(p)]++
			if ix.lengths[len(p)] == 1 {
				ix.sorted = slices.Sorted(maps.Keys(ix.lengths))
			}
		}
		ix.prefixes[p] = append(ix.prefixes[p], topic)
	}
}

func (ix *keyIndex) remove(topic string, w Watch) {
	delete(ix.watched, topic)
	for _, k := range w.Keys {
		if ix.exact[k] = without(ix.exact[k], topic); len(ix.exact[k]) == 0 {
			delete(ix.exact, k)
		}
	}
	for _, p := range w.Prefixes {
		if ix.prefixes[p] = without(ix.prefixes[p], topic); len(ix.prefixes[p]) > 0 {
			continue
		}
		delete(ix.prefixes, p)
		if ix.lengths[len(p)]--; ix.lengths[len(p)] == 0 {
			delete(ix.lengths, len(p))
			ix.sorted = slices.Sorted(maps.Keys(ix.lengths))
		}
	}
}

// without is topics without (one) topic.
func without(topics []string, topic string) []string {
	if i := slices.Index(topics, topic); i >= 0 {
		topics[i] = topics[len(topics)-1]
		return topics[:len(topics)-1]
	}
	return topics
}

// route adds to into every topic that watches key.
func (ix *keyIndex) route(key string, into map[string]bool) {
	for _, t := range ix.exact[key] {
		into[t] = true
	}
	for _, n := range ix.sorted {
		if n > len(key) {
			break
		}
		for _, t := range ix.prefixes[key[:n]] {
			into[t] = true
		}
	}
}
