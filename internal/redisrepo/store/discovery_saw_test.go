package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// What keyspace notifications tell (Saw) registers new names at once: boards, queues and
// sliding logs on a sorted-set event only (their sweeps find zsets only), limiter hashes (a
// token bucket) on a hash event only, locks on any event
// that leaves the key, an adopted source's keys by its pattern; deletions, names discovery
// refuses and names already known change nothing, and a known sliding log is not adopted again.
func TestDiscoverySaw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	var adopted []string
	d := NewDiscovery(rdb, DefaultKeys, func(_ context.Context, keys []string) { adopted = append(adopted, keys...) })
	src, _ := json.Marshal(domain.Source{Name: "api", Kind: domain.SourceLimiter, Key: "limit:api:{client}", Encoding: "sliding_log", Limit: 10, WindowMs: 1000})
	if err := rdb.HSet(ctx, DefaultKeys.Sources(), "api", src).Err(); err != nil {
		t.Fatal(err)
	}
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := d.SourcePatterns(); !slices.Equal(got, []string{"limit:api:*"}) {
		t.Fatalf("source patterns %v", got)
	}
	d.Saw(ctx, []Change{
		{"leaderboard:new", "zincr"}, {"leaderboard:a-string", "set"}, {"queue:jobs", "zadd"}, {"queue:gone", "del"},
		{"lock:order:1", "set"}, {"lock:redisson", "hset"}, {"lock:{braced}", "set"}, {"rate:ann", "zadd"}, {"rate:ann", "zadd"},
		{"limit:api:bob", "zadd"}, {"limit:web:bob", "zadd"}, {"rate:tb:api:{bob}", "hset"}, {"rate:tb:api:{bob}", "hset"},
		{"rate:tb:api:{eve}", "expire"},
	})
	d.Saw(ctx, []Change{{"rate:ann", "zadd"}})
	for kind, want := range map[Kind][]string{KindBoard: {"new"}, KindQueue: {"jobs"}, KindLock: {"order:1", "redisson"}} {
		if got := d.Names(kind); !slices.Equal(got, want) {
			t.Errorf("names of kind %d: %v, want %v", kind, got, want)
		}
	}
	if !slices.Equal(adopted, []string{"rate:ann", "rate:tb:api:{bob}"}) {
		t.Errorf("limiter keys handed to the limiters: %v, want rate:ann and the bucket once", adopted)
	}
	if got := d.AdoptedKeys("limit:api:*"); !slices.Equal(got, []string{"limit:api:bob"}) {
		t.Errorf("adopted keys %v", got)
	}
	// A name seen counts for the pass under way: the next complete pass drops it when its
	// key is not there.
	for range 2 {
		if err := d.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.Names(KindBoard); len(got) != 0 {
		t.Errorf("boards after a sweep that found no key: %v", got)
	}
}

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, key string
		want         bool
	}{{"limit:api:*", "limit:api:x/y", true}, {"limit:api:*", "limit:web:x", false}, {`a\*b*`, "a*bc", true}, {`a\*b*`, "axbc", false},
		{"rate:*:w:*", "rate:c:w:17", true}, {"x.y*", "xzy", false}} {
		if got := globMatch(c.pattern, c.key); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pattern, c.key, got)
		}
	}
}
