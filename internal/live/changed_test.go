package live

import (
	"context"

	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"
)

// watches is a Router over a fixed table.
type watches map[string]Watch

func (w watches) Watches(_ context.Context, topic string) Watch { return w[topic] }

// A subscribed board's topic is polled at once, alone, when its key changes after a quiet
// gap; a key nobody watches polls nothing; a burst within the gap is one poll at its end.
func TestChangedPollsOnlyTheTopicsThatWatchTheKey(t *testing.T) {
	w, src, r, _, subscribe := newWatcher(t)
	w.interval = time.Hour // no periodic tick in this test
	w.router = watches{
		"board:a": {Keys: []string{"leaderboard:a"}, Prefixes: []string{"zpulse:board:{a}:"}},
		"board:b": {Keys: []string{"leaderboard:b"}},
	}
	src.set("board:a", 1)
	src.set("board:b", 1)
	subscribe("board:a", "board:b")
	clock, waitHandled := runManual(t, w)
	src.set("board:a", 2)
	src.set("board:b", 2)
	polls := func() int { src.mu.Lock(); defer src.mu.Unlock(); return len(src.polls) }

	w.Changed(context.Background(), []string{"queue:unrelated", "leaderboard:ab"})
	if n := polls(); n != 0 {
		t.Fatalf("keys nobody watches polled %d times", n)
	}
	w.Changed(context.Background(), []string{"leaderboard:a"})
	waitHandled(1)
	src.mu.Lock()
	got := fmt.Sprint(src.polls)
	src.mu.Unlock()
	if got != "[[board:a]]" || r.count("board:a") != 1 || r.count("board:b") != 0 {
		t.Fatalf("polled %s, rendered a %d and b %d times; want board:a alone, at once", got, r.count("board:a"), r.count("board:b"))
	}

	src.set("board:a", 3)
	waitHandled(clock.Advance(10 * time.Millisecond))
	w.Changed(context.Background(), []string{"zpulse:board:{a}:settings"}) // by prefix, within the gap
	waitHandled(1)
	w.Changed(context.Background(), []string{"leaderboard:b"})
	waitHandled(1)
	if n := polls(); n != 1 {
		t.Fatalf("a change within the gap polled at once (%d polls)", n)
	}
	waitHandled(clock.Advance(40 * time.Millisecond))
	src.mu.Lock()
	last := slices.Sorted(slices.Values(src.polls[len(src.polls)-1]))
	src.mu.Unlock()
	if fmt.Sprint(last) != "[board:a board:b]" || r.count("board:a") != 2 || r.count("board:b") != 1 {
		t.Errorf("at the gap's end polled %v, rendered a %d and b %d times; want both once", last, r.count("board:a"), r.count("board:b"))
	}
}

// Routing a key costs the same whatever the number of subscribed topics: exact keys are one
// map lookup, prefixes one per distinct prefix length.
func BenchmarkRouteKeyAmong10kTopics(b *testing.B) {
	topics := make([]string, 10_000)
	table := watches{}
	for i := range topics {
		topics[i] = "board.all.10:game-" + strconv.Itoa(i)
		board := "game-" + strconv.Itoa(i)
		table[topics[i]] = Watch{Keys: []string{"leaderboard:" + board},
			Prefixes: []string{"leaderboard:" + board + ":", "zpulse:board:{" + board + "}:"}}
	}
	ix := newKeyIndex(table)
	ix.sync(context.Background(), topics)
	keys := []string{"leaderboard:game-4242", "zpulse:board:{game-77}:settings", "queue:nobody", "leaderboard:game-9999:2026-12-01"}
	into := map[string]bool{}
	b.ResetTimer()
	for i := range b.N {
		ix.route(keys[i%len(keys)], into)
		clear(into)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/key")
}

// The index follows the subscribed topics: a topic gone routes nothing, one that comes routes
// at once, and prefixes of a length no topic has any more cost nothing.
func TestKeyIndexFollowsTheTopics(t *testing.T) {
	t.Parallel()
	table := watches{
		"a": {Keys: []string{"k:a"}, Prefixes: []string{"p:a:"}},
		"b": {Keys: []string{"k:b"}, Prefixes: []string{"p:bb:"}},
	}
	ix := newKeyIndex(table)
	routed := func(key string) string {
		into := map[string]bool{}
		ix.route(key, into)
		return fmt.Sprint(slices.Sorted(maps.Keys(into)))
	}
	ix.sync(context.Background(), []string{"a", "b"})
	if routed("k:a") != "[a]" || routed("p:bb:x") != "[b]" || routed("p:a:1") != "[a]" || routed("k:c") != "[]" {
		t.Fatalf("routes %s %s %s %s", routed("k:a"), routed("p:bb:x"), routed("p:a:1"), routed("k:c"))
	}
	ix.sync(context.Background(), []string{"a"})
	if routed("k:b") != "[]" || routed("p:bb:x") != "[]" || fmt.Sprint(ix.sorted) != "[4]" {
		t.Errorf("b is gone but routes %s, %s (lengths %v)", routed("k:b"), routed("p:bb:x"), ix.sorted)
	}
	ix.sync(context.Background(), []string{"b", "a"})
	if routed("p:bb:x") != "[b]" || routed("k:a") != "[a]" {
		t.Errorf("b is back but routes %s", routed("p:bb:x"))
	}
}

// A viewer coming to or leaving one topic among 10,000 costs the index its difference.
func BenchmarkSyncOneTopicAmong10k(b *testing.B) {
	topics := make([]string, 10_001)
	table := watches{}
	for i := range topics {
		topics[i] = "queue." + strconv.Itoa(i)
		table[topics[i]] = Watch{Keys: []string{"queue:" + strconv.Itoa(i)}, Prefixes: []string{"{queue:" + strconv.Itoa(i) + "}:"}}
	}
	ix := newKeyIndex(table)
	ix.sync(context.Background(), topics)
	b.ResetTimer()
	for i := range b.N {
		ix.sync(context.Background(), topics[i%2:]) // topic 0 leaves, comes back
	}
}
