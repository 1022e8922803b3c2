package store

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// keyKinds are the things zpulse names, each built by DefaultKeys from up to two names and a
// time. The fuzz target below builds the keys of two of them.
var keyKinds = []struct {
	name string
	// build returns the key and the thing's identity (what tells two things apart: a period
	// board is named by its period's suffix, not by the instant that fell in it), or ok false
	// when zpulse refuses to name such a thing (an invalid or reserved name).
	build func(k Keys, a, b string, t time.Time) (key, id string, ok bool)
}{
	{"board", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.Leaderboard(a), a, domain.ValidateNewBoardName(a) == nil
	}},
	{"period board", func(k Keys, a, b string, t time.Time) (string, string, bool) {
		p := domain.Periods[len(b)%len(domain.Periods)]
		return k.PeriodBoard(a, p, t), a + "\x00" + p.Suffix(t), domain.ValidateNewBoardName(a) == nil
	}},
	{"board settings", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.BoardSettings(a), a, domain.ValidateNewBoardName(a) == nil
	}},
	{"unique players", func(k Keys, a, _ string, t time.Time) (string, string, bool) {
		return k.BoardUnique(a, t), a + "\x00" + domain.Daily.Suffix(t), domain.ValidateNewBoardName(a) == nil
	}},
	{"board adds", func(k Keys, a, _ string, t time.Time) (string, string, bool) {
		return k.BoardAdds(a, t), a + "\x00" + fmt.Sprint(t.Unix()/60), domain.ValidateNewBoardName(a) == nil
	}},
	{"season", func(k Keys, a, b string, _ time.Time) (string, string, bool) {
		n := int64(len(b)) + 1
		return k.SeasonBoard(a, n), a + "\x00" + fmt.Sprint(n), domain.ValidateNewBoardName(a) == nil
	}},
	{"seasons", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.Seasons(a), a, domain.ValidateNewBoardName(a) == nil
	}},
	{"queue history", history(domain.HistoryQueue)},
	{"limiter history", history(domain.HistoryLimiter)},
	{"board history", history(domain.HistoryBoard)},
	{"queue totals", fixed(func(k Keys) string { return k.HistoryTotals(domain.HistoryQueue) })},
	{"limiter totals", fixed(func(k Keys) string { return k.HistoryTotals(domain.HistoryLimiter) })},
	{"board totals", fixed(func(k Keys) string { return k.HistoryTotals(domain.HistoryBoard) })},
	{"board index", fixed(Keys.BoardIndex)},
	{"queue index", fixed(Keys.QueueIndex)},
	{"lock index", fixed(Keys.LockIndex)},
	{"limiter index", fixed(Keys.LimiterIndex)},
	{"demo switch", fixed(Keys.DemoPaused)},
	{"notify probe", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.NotifyProbe(len(a)), fmt.Sprint(len(a)), true
	}},
	{"queue", named("queue", Keys.Queue)},
	{"queue processing", named("queue", Keys.QueueProcessing)},
	{"queue jobs", named("queue", Keys.QueueJobs)},
	{"queue dead", named("queue", Keys.QueueDead)},
	{"queue attempts", named("queue", Keys.QueueAttempts)},
	{"queue scores", named("queue", Keys.QueueScores)},
	{"queue settings", named("queue", Keys.QueueSettings)},
	{"queue paused", named("queue", Keys.QueuePaused)},
	{"queue throughput", func(k Keys, a, _ string, t time.Time) (string, string, bool) {
		return k.QueueThroughput(a, t), a + "\x00" + fmt.Sprint(t.Unix()/60), domain.ValidateName("queue", a) == nil
	}},
	{"schedule index", fixed(Keys.ScheduleIndex)},
	{"schedule", func(k Keys, a, b string, _ time.Time) (string, string, bool) {
		return k.Schedule(a, b), a + "\x00" + b, domain.ValidateName("queue", a) == nil && domain.ValidateScheduleName(b) == nil
	}},
	{"lock", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.Lock(a), a, domain.ValidateName("lock", a) == nil && !k.IsSingletonLock(a)
	}},
	{"lock meta", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.LockMeta(a), a, domain.ValidateName("lock", a) == nil
	}},
	{"lock fence", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.LockFence(a), a, domain.ValidateName("lock", a) == nil
	}},
	{"singleton", func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return k.Lock(k.SingletonLock(a)), a, domain.ValidateName("singleton lock", k.SingletonLock(a)) == nil
	}},
	{"sliding log", limiterState(domain.SlidingLog)},
	{"fixed window", limiterState(domain.FixedWindow)},
	{"sliding counter", limiterState(domain.SlidingCounter)},
	{"token bucket", limiterState(domain.TokenBucket)},
	{"limiter policy", named("limiter", Keys.LimiterPolicy)},
	{"limiter clients", named("limiter", Keys.LimiterClients)},
	{"limiter events", func(k Keys, a, b string, _ time.Time) (string, string, bool) {
		return k.LimiterEvents(a, b), a + "\x00" + b, domain.ValidateLimiterName(a) == nil && domain.ValidateClient(b) == nil
	}},
	{"limiter stats", func(k Keys, a, _ string, t time.Time) (string, string, bool) {
		return k.LimiterStats(a, t.Unix()/60), a + "\x00" + fmt.Sprint(t.Unix()/60), domain.ValidateLimiterName(a) == nil
	}},
}

// history is an entity's ring over the range b's length picks.
func history(kind domain.HistoryKind) func(Keys, string, string, time.Time) (string, string, bool) {
	return func(k Keys, a, b string, _ time.Time) (string, string, bool) {
		r := domain.HistoryRanges[len(b)%len(domain.HistoryRanges)]
		ok := domain.ValidateHistoryName(kind, a) == nil
		if kind == domain.HistoryBoard {
			ok = domain.ValidateNewBoardName(a) == nil
		}
		return k.HistoryRing(kind, a, r), a + "\x00" + string(r), ok
	}
}

func fixed(f func(Keys) string) func(Keys, string, string, time.Time) (string, string, bool) {
	return func(k Keys, _, _ string, _ time.Time) (string, string, bool) { return f(k), "", true }
}

func named(kind string, f func(Keys, string) string) func(Keys, string, string, time.Time) (string, string, bool) {
	return func(k Keys, a, _ string, _ time.Time) (string, string, bool) {
		return f(k, a), a, domain.ValidateName(kind, a) == nil
	}
}

// limiterState is a client's state under a policy with the algorithm. The policy "default"
// is always a sliding log (domain.LimitPolicy.Validate).
func limiterState(alg domain.Algorithm) func(Keys, string, string, time.Time) (string, string, bool) {
	return func(k Keys, policy, client string, _ time.Time) (string, string, bool) {
		ok := domain.ValidateLimiterName(policy) == nil && domain.ValidateClient(client) == nil &&
			(policy != domain.DefaultLimiter || alg == domain.SlidingLog)
		return k.LimiterState(domain.LimitPolicy{Name: policy, Algorithm: alg}, client), policy + "\x00" + client, ok
	}
}

// fuzzTime maps a fuzzed number to an instant in years 1970..9999, where the period suffixes
// keep their four-digit years.
func fuzzTime(n int64) time.Time {
	const span = 253402300799 // 9999-12-31T23:59:59Z
	if n < 0 {
		n = -(n + 1)
	}
	return time.Unix(n%span, 0).UTC()
}

// FuzzKeysInjective builds the keys of two things zpulse names, each a kind with up to two
// Names and a time, and fails when two different things get one key. It also reads every
// limiter state key back: the parse must give exactly what built it.
func FuzzKeysInjective(f *testing.F) {
	kind := func(name string) uint8 {
		for i, k := range keyKinds {
			if k.name == name {
				return uint8(i)
			}
		}
		panic(name)
	}
	day := time.Date(2026, 5, 17, 12, 0, 0, 0, time.UTC).Unix() // any date: keys are built, never written
	for _, s := range []struct {
		k1     string
		a1, b1 string
		k2     string
		a2, b2 string
	}{
		// The look-alikes.
		{"sliding log", "default", "pa:c", "sliding log", "pa", "c"},
		{"sliding log", "pb", "x:y", "sliding log", "pb:x", "y"},
		{"fixed window", "pb", "x:y", "fixed window", "pb:x", "y"},
		{"token bucket", "default", "c", "token bucket", "d", "c"},
		{"sliding log", "default", "fw:p:c", "fixed window", "p", "c"},
		{"sliding log", "default", "sl:p:c", "sliding log", "p", "c"},
		{"sliding log", "fw", "x:c", "fixed window", "x", "c"},
		{"board", "x:2026-11-29", "", "period board", "x", ""},
		{"board", "x:2026-W48", "", "period board", "x", "w"},
		{"board", "x:2026-11", "", "period board", "x", "mm"},
		{"board", "x:extra", "", "board", "x", ""},
		{"board settings", "x:unique:y", "", "unique players", "x", ""},
		{"board settings", "x", "", "board settings", "x:settings", ""},
		{"unique players", "x:unique:2026-11-29", "", "unique players", "x", ""},
		{"lock", "zpulse:queue-reaper", "", "singleton", "queue-reaper", ""},
		{"season", "x", "", "board", "{leaderboard:x}:season:1", ""},
		{"season", "x", "", "season", "x}:season:1", ""},
		{"seasons", "x", "", "season", "x", "1"},
		{"season", "leaderboard:x", "", "queue processing", "x", ""},
		{"season", "x", "", "lock meta", "x", ""},
		{"lock meta", "x", "", "queue", "x", ""},
		{"queue processing", "x}:jobs", "", "queue jobs", "x", ""},
		{"limiter events", "p", "c:events:d", "limiter events", "p:c", "d"},
		{"limiter stats", "p", "", "limiter events", "p", "1"},
		{"limiter policy", "p}:clients", "", "limiter clients", "p", ""},
	} {
		f.Add(kind(s.k1), s.a1, s.b1, day, kind(s.k2), s.a2, s.b2, day)
	}
	f.Fuzz(func(t *testing.T, k1 uint8, a1, b1 string, t1 int64, k2 uint8, a2, b2 string, t2 int64) {
		x, y := keyKinds[int(k1)%len(keyKinds)], keyKinds[int(k2)%len(keyKinds)]
		key1, id1, ok1 := x.build(DefaultKeys, a1, b1, fuzzTime(t1))
		key2, id2, ok2 := y.build(DefaultKeys, a2, b2, fuzzTime(t2))
		if ok1 && ok2 && key1 == key2 && (x.name != y.name || id1 != id2) {
			t.Fatalf("%s %q and %s %q share the key %q", x.name, id1, y.name, id2, key1)
		}
		checkSlots(t, a1, b1, fuzzTime(t1))
		for _, alg := range domain.Algorithms {
			p := domain.LimitPolicy{Name: a1, Algorithm: alg}
			if domain.ValidateLimiterName(a1) != nil || domain.ValidateClient(b1) != nil || (a1 == domain.DefaultLimiter && alg != domain.SlidingLog) {
				continue
			}
			key := DefaultKeys.LimiterState(p, b1)
			if gotAlg, policy, client, ok := DefaultKeys.ParseLimiterState(key); !ok || gotAlg != alg || policy != a1 || client != b1 {
				t.Fatalf("%q (%s %q, client %q) reads back as %s %q, client %q, %v", key, alg, a1, b1, gotAlg, policy, client, ok)
			}
		}
	})
}

// hashTag is what Redis Cluster hashes of a key: the part between the first "{" and the next
// "}" when that is not empty, else the whole key. Keys with one hash tag share a slot.
func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// checkSlots fails when the keys one script or transaction uses together would fall in
// different Cluster slots, or when a policy's client state would not spread by client.
func checkSlots(t *testing.T, name, client string, at time.Time) {
	k := DefaultKeys
	same := func(what string, keys ...string) {
		for _, key := range keys[1:] {
			if hashTag(key) != hashTag(keys[0]) {
				t.Fatalf("%s: %q and %q hash to different slots", what, keys[0], key)
			}
		}
	}
	if domain.ValidateName("queue", name) == nil {
		same("queue "+name, k.Queue(name), k.QueueProcessing(name), k.QueueJobs(name), k.QueueDead(name),
			k.QueueAttempts(name), k.QueueScores(name), k.QueueSettings(name), k.QueuePaused(name), k.QueueThroughput(name, at),
			k.HistoryRing(domain.HistoryQueue, name, domain.HistoryHour), k.HistoryRing(domain.HistoryQueue, name, domain.HistoryDay))
		same("lock "+name, k.Lock(name), k.LockMeta(name), k.LockFence(name))
		same("seasons "+name, k.Leaderboard(name), k.Seasons(name), k.SeasonBoard(name, 1), k.SeasonBoard(name, int64(len(client))+2))
		same("board "+name, k.BoardSettings(name), k.BoardUnique(name, at), k.BoardAdds(name, at),
			k.HistoryRing(domain.HistoryBoard, name, domain.HistoryHour), k.HistoryRing(domain.HistoryBoard, name, domain.HistoryDay))
		same("limiter "+name, k.LimiterPolicy(name), k.LimiterClients(name), k.LimiterStats(name, at.Unix()/60),
			k.HistoryRing(domain.HistoryLimiter, name, domain.HistoryHour), k.HistoryRing(domain.HistoryLimiter, name, domain.HistoryDay))
	}
	if domain.ValidateLimiterName(name) == nil && domain.ValidateClient(client) == nil {
		for _, alg := range domain.Algorithms {
			if key := k.LimiterState(domain.LimitPolicy{Name: name, Algorithm: alg}, client); name != domain.DefaultLimiter && hashTag(key) != client {
				t.Fatalf("%q hashes %q, not its client %q: a policy's clients would share a slot", key, hashTag(key), client)
			}
		}
	}
}
