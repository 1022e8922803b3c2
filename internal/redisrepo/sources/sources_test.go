package sources

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// victims are keys of other things that an adopted limiter's "try" once destroyed: a board
// with players, a queue with a job, a lock held by another service.
func plantVictims(t *testing.T, rdb redis.UniversalClient) (check func()) {
	t.Helper()
	ctx := context.Background()
	rdb.ZAdd(ctx, "leaderboard:victim", redis.Z{Score: 100, Member: "alice"}, redis.Z{Score: 50, Member: "bob"})
	rdb.ZAdd(ctx, "queue:victimq", redis.Z{Score: 1, Member: "job-1"})
	rdb.Set(ctx, "lock:x", "their-token", time.Hour)
	return func() {
		t.Helper()
		if z := rdb.ZRangeWithScores(ctx, "leaderboard:victim", 0, -1).Val(); len(z) != 2 || z[0].Member != "bob" || z[1].Score != 100 ||
			rdb.PTTL(ctx, "leaderboard:victim").Val() != -time.Nanosecond {
			t.Errorf("leaderboard:victim changed: %v, ttl %v", z, rdb.PTTL(ctx, "leaderboard:victim").Val())
		}
		if z := rdb.ZRange(ctx, "queue:victimq", 0, -1).Val(); len(z) != 1 || z[0] != "job-1" {
			t.Errorf("queue:victimq changed: %v", z)
		}
		if v, typ := rdb.Get(ctx, "lock:x").Val(), rdb.Type(ctx, "lock:x").Val(); v != "their-token" || typ != "string" {
			t.Errorf("lock:x changed: %s %q", typ, v)
		}
	}
}

// An adopted limiter writes only keys of its own layout: a layout that could name another
// thing's key is refused, so is a client that would leave its part of the layout, and a key
// of another type at the client's own key is left as it is (wrong_type).
func TestAdoptedLimiterWritesOnlyItsLayout(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testAdoptedLimiterWritesOnlyItsLayout)
}

func testAdoptedLimiterWritesOnlyItsLayout(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	src, _, clock := newSourcesOn(rdb)
	unchanged := plantVictims(t, rdb)
	log := func(key string) domain.Source {
		return domain.Source{Name: "x", Kind: domain.SourceLimiter, Key: key, Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 1000}
	}
	for key, want := range map[string]string{
		"{client}":              "must begin with a fixed part",
		"{client}:x":            "must begin with a fixed part",
		"leaderboard:{client}":  "a board's key",
		"queue:{client}":        "a queue's key",
		"lock:{client}":         "a lock's key",
		"lo{client}":            "a lock's key",
		"l{client}":             "a board's key",
		"zpulse:{client}":       "zpulse's own keys",
		"rate:{client}":         "default policy",
		"zpulse:sl:{client}:id": "zpulse's own keys",
	} {
		_, err := src.SaveSource(ctx, log(key))
		code := domain.ECONFLICT // it could name a key of zpulse's families
		if strings.HasPrefix(key, "{") {
			code = domain.EINVALID // it could name any key
		}
		if domain.ErrorCode(err) != code || !strings.Contains(domain.ErrorMessage(err), want) {
			t.Errorf("layout %q: %v, want %s mentioning %q", key, err, code, want)
		}
	}
	// A source an older zpulse saved at {client} is neither shown nor tried.
	old, _ := json.Marshal(log("{client}"))
	rdb.HSet(ctx, store.DefaultKeys.Sources(), "old", old)
	if _, err := src.TrySource(ctx, "old", "leaderboard:victim"); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("try of a saved {client} layout: %v, want not_found", err)
	}

	if _, err := src.SaveSource(ctx, domain.Source{Name: "rl", Kind: domain.SourceLimiter, Key: "ratelog:{client}", Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 1000}); err != nil {
		t.Fatal(err)
	}
	api, err := src.SaveSource(ctx, domain.Source{Name: "api", Kind: domain.SourceLimiter, Key: "limit:api:{client}:{window_start}", Encoding: domain.SourceFixedWindow, Limit: 5, WindowMs: 60000})
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"leaderboard:victim", "queue:victimq", "x:y", "a{b}", ""} {
		for _, name := range []string{"rl", "api"} {
			if _, err := src.TrySource(ctx, name, client); domain.ErrorCode(err) != domain.EINVALID {
				t.Errorf("%s: client %q: %v, want invalid", name, client, err)
			}
		}
	}
	if keys := redistest.KeysOnEveryMaster(t, rdb, "ratelog:*"); len(keys) != 0 {
		t.Errorf("refused clients wrote %v", keys)
	}

	// Keys of another type at a client's own key: refused, named, unchanged.
	rdb.HSet(ctx, "ratelog:h", "f", "v")
	counter := store.DefaultKeys.SourceClient(api, "z", clock.Now())
	rdb.ZAdd(ctx, counter, redis.Z{Score: 1, Member: "m"})
	for name, c := range map[string]struct{ client, key, held string }{
		"rl":  {"h", "ratelog:h", "hash"},
		"api": {"z", counter, "zset"},
	} {
		_, err := src.TrySource(ctx, name, c.client)
		if domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(domain.ErrorMessage(err), c.key) || !strings.Contains(domain.ErrorMessage(err), "holds a "+c.held) {
			t.Errorf("%s: try on a %s: %v, want wrong_type naming %s and its type", name, c.held, err, c.key)
		}
	}
	if h := rdb.HGetAll(ctx, "ratelog:h").Val(); len(h) != 1 || h["f"] != "v" || rdb.PTTL(ctx, "ratelog:h").Val() != -time.Nanosecond {
		t.Errorf("ratelog:h changed: %v", h)
	}
	if z := rdb.ZRange(ctx, counter, 0, -1).Val(); len(z) != 1 || rdb.PTTL(ctx, counter).Val() != -time.Nanosecond {
		t.Errorf("%s changed: %v", counter, z)
	}
	// A client of the layout is counted, on its own key only.
	if res, err := src.TrySource(ctx, "rl", "c-1"); err != nil || !res.Allowed || rdb.Type(ctx, "ratelog:c-1").Val() != "zset" {
		t.Errorf("try of c-1: %+v, %v", res, err)
	}
	unchanged()
}

// A key of another type under an adopted limiter's or lock's pattern (the service's keys,
// whatever they are) is left out of the view, not a failure of the whole view: a sliding
// log's hash is not a client, a Redisson lock (a hash) shows without a value.
func TestAdoptedViewsSkipKeysOfAnotherType(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, testAdoptedViewsSkipKeysOfAnotherType)
}

func testAdoptedViewsSkipKeysOfAnotherType(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	srcs, found, clock := newSourcesOn(rdb)
	for _, src := range []domain.Source{
		{Name: "rl", Kind: domain.SourceLimiter, Key: "ratelog:{client}", Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 60000},
		{Name: "locks", Kind: domain.SourceLock, Key: "mylock:"},
	} {
		if _, err := srcs.SaveSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	rdb.HSet(ctx, "ratelog:h", "f", "v")
	rdb.ZAdd(ctx, "ratelog:c-1", redis.Z{Score: float64(clock.Now().UnixMilli()), Member: "r1"})
	rdb.HSet(ctx, "mylock:redisson", "owner:1", "1")
	rdb.Set(ctx, "mylock:order", "their-token", time.Hour)
	if err := found.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := srcs.SourceView(ctx, "rl"); err != nil || v.Count != 1 || v.Clients[0].Client != "c-1" {
		t.Errorf("limiter view: %+v, %v; want c-1 alone", v, err)
	}
	v, err := srcs.SourceView(ctx, "locks")
	if err != nil || v.Count != 2 {
		t.Fatalf("lock view: %+v, %v; want both locks", v, err)
	}
	for _, l := range v.Locks {
		if want := map[string]string{"mylock:order": "their-token", "mylock:redisson": ""}[l.Key]; l.Value != want {
			t.Errorf("%s shows %q, want %q", l.Key, l.Value, want)
		}
	}
}
