package store

import (
	"strings"
	"testing"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// keyKindSources are the kinds of adopted source that may name a key of a keyKinds entry (a
// board source may read zpulse's boards); every other kind is zpulse's own, for no source.
var keyKindSources = map[string]domain.SourceKind{
	"board": domain.SourceBoard, "period board": domain.SourceBoard,
	"queue": domain.SourceQueue, "lock": domain.SourceLock, "singleton": domain.SourceLock,
}

// FuzzSourceLayout adopts a fuzzed layout of every kind and, when zpulse accepts it, checks
// the keys it names: a limiter's accepted client renders a key that reads back as that
// client, and no key a source names (a lock source: no key under its prefix) begins with the
// prefix of another kind's family or equals a key zpulse builds for another kind (keyKinds).
func FuzzSourceLayout(f *testing.F) {
	day := time.Date(2026, 5, 17, 12, 0, 0, 0, time.UTC).Unix()
	kindOf := func(k domain.SourceKind) uint8 {
		for i, s := range domain.SourceKinds {
			if s == k {
				return uint8(i)
			}
		}
		panic(k)
	}
	for _, s := range []struct {
		kind        domain.SourceKind
		key, client string
		other       string // a keyKinds entry
		a, b        string
	}{
		// The issue's: a limiter at {client} writing a board, a queue, a lock.
		{domain.SourceLimiter, "{client}", "leaderboard:victim", "board", "victim", ""},
		{domain.SourceLimiter, "{client}", "queue:victimq", "queue", "victimq", ""},
		{domain.SourceLimiter, "l{client}:x", "ock", "lock", "x", ""},
		{domain.SourceLimiter, "limit:api:{client}:{window_start}", "user1001", "sliding log", "default", "user1001"},
		{domain.SourceLimiter, "ratelog:{client}", "queue:victimq", "queue", "victimq", ""},
		{domain.SourceLimiter, "rl|{client}|{window_start}", "a|1", "lock", "a", ""},
		{domain.SourceLimiter, "rate:{client}", "c-42", "sliding log", "default", "c-42"},
		{domain.SourceBoard, "game:rank:{yyyymmdd}", "", "board", "game:rank:20261129", ""},
		{domain.SourceBoard, "zpulse:index:boards", "", "board index", "", ""},
		{domain.SourceQueue, "jobs:mail", "", "queue", "jobs:mail", ""},
		{domain.SourceLock, "lock:order:", "", "lock", "order:1001", ""},
		{domain.SourceLock, "le", "", "board", "x", ""},
		// Hash-tagged layouts (the second article's advice for a Cluster) beside zpulse's own
		// braced keys.
		{domain.SourceBoard, "{game}:rank:{yyyymmdd}", "", "board", "x", ""},
		{domain.SourceLimiter, "limit:api:{{client}}:{window_start}", "user1001", "queue", "q", ""},
		{domain.SourceLimiter, "{{client}}:bucket", "queue:q", "queue", "q", ""},
		{domain.SourceBoard, "{queue:q}:jobs", "", "queue", "q", ""},
		{domain.SourceLock, "{lock:", "", "lock", "x", ""},
		{domain.SourceLimiter, "{q{client}}", "ueue:q", "queue", "q", ""},
		// A limiter's try must not write a season of a zpulse board.
		{domain.SourceLimiter, "{leaderboard:g}:season:{client}", "1", "season", "g", ""},
		{domain.SourceLimiter, "{leaderboard:g}:{client}", "seasons", "seasons", "g", ""},
	} {
		f.Add(kindOf(s.kind), s.key, uint8(len(s.key)), s.client, day, s.other, s.a, s.b)
	}
	f.Fuzz(func(t *testing.T, kind uint8, key string, enc uint8, client string, at int64, other, a, b string) {
		src := domain.Source{Name: "s", Kind: domain.SourceKinds[int(kind)%len(domain.SourceKinds)], Key: key, Limit: 5, WindowMs: 60000,
			TokensField: "tokens", TimeField: "ts", RatePerS: 1}
		src.Encoding = map[domain.SourceKind]string{domain.SourceBoard: "none", domain.SourceQueue: domain.SourcePriority,
			domain.SourceLimiter: [3]string{domain.SourceFixedWindow, domain.SourceSlidingLog, domain.SourceTokenBucket}[enc%3]}[src.Kind]
		if src.Validate(DefaultKeys.Families()) != nil {
			return
		}
		now := fuzzTime(at)
		var named string
		switch src.Kind {
		case domain.SourceBoard:
			named = DefaultKeys.SourceBoard(src, now)
		case domain.SourceQueue, domain.SourceLock:
			named = src.Key
		case domain.SourceLimiter:
			if src.ValidateClient(client, now) != nil {
				return
			}
			named = DefaultKeys.SourceClient(src, client, now)
			if c, ws, ok := src.ParseClientKey(named); !ok || c != client || (src.Encoding == domain.SourceFixedWindow && ws != src.WindowStart(now)) {
				t.Fatalf("%s: client %q renders %q, which reads back as %q (window %d, %v)", src.Key, client, named, c, ws, ok)
			}
		}
		under := src.Kind == domain.SourceLock // a lock source names every key under its prefix
		for _, fam := range DefaultKeys.Families() {
			if fam.Kind != src.Kind && (strings.HasPrefix(named, fam.Prefix) || (under && strings.HasPrefix(fam.Prefix, named))) {
				t.Fatalf("%s source %q names %q, under %s", src.Kind, src.Key, named, fam.Holds)
			}
		}
		for _, k := range keyKinds {
			if k.name != other || keyKindSources[k.name] == src.Kind {
				continue
			}
			if zk, _, ok := k.build(DefaultKeys, a, b, now); ok && (zk == named || (under && strings.HasPrefix(zk, named))) {
				t.Fatalf("%s source %q names zpulse's %s key %q", src.Kind, src.Key, k.name, zk)
			}
		}
	})
}
