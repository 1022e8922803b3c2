package store

import (
	"context"
	"regexp"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// Change is one key another writer changed, as a keyspace notification tells it: the key and
// the event ("zadd", "zincr", "set", "del", "expired", …).
type Change struct{ Key, Event string }

// gone are the events after which the key no longer exists.
var gone = map[string]bool{"del": true, "unlink": true, "expired": true, "evicted": true, "rename_from": true, "move_from": true}

// Saw registers what keyspace notifications told: a new board, queue, lock or limiter client
// (and an adopted source's new key) shows at once instead of at the next sweep. A board's,
// queue's or sliding log's key counts on a sorted-set event (its sweep finds zsets only), a
// limiter's hash (fixed window, sliding counter, token bucket) on a hash event; a lock's on
// any event that leaves the key there. Names already known cost nothing; a name
// seen is kept as a sweep's find is (until a complete pass after it misses it), so deletions are the
// sweep's. New limiter keys (sliding logs, limiter hashes) go to onRate (the limiters adopt their clients).
func (d *Discovery) Saw(ctx context.Context, changes []Change) {
	var rate []string
	d.mu.Lock()
	for _, c := range changes {
		if gone[c.Event] {
			continue
		}
		zset, hash := strings.HasPrefix(c.Event, "z"), strings.HasPrefix(c.Event, "h")
		for k, s := range d.sweeps {
			if !strings.HasPrefix(c.Key, s.prefix) || (s.typ == "zset" && !zset) || (s.typ == "hash" && !hash) {
				continue
			}
			id := c.Key
			if s.name != "" {
				if id = strings.TrimPrefix(c.Key, s.prefix); domain.ValidateKeyName(s.name, id) != nil {
					continue
				}
			}
			if s.remember(id) && (Kind(k) == rateKeys || Kind(k) == rateHashes) {
				rate = append(rate, c.Key)
			}
		}
		for p, s := range d.adopted {
			if globMatch(p, c.Key) {
				s.remember(c.Key)
			}
		}
	}
	onRate := d.onRate
	d.mu.Unlock()
	if onRate != nil && len(rate) > 0 {
		onRate(ctx, rate)
	}
}

// globMatch matches key against a Redis glob made of literal runs (with \ escapes) and *,
// the only patterns discovery makes (domain.Source.ScanPattern, sourcePattern).
func globMatch(pattern, key string) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '*' {
			re.WriteString("(?s:.*)")
			continue
		}
		if pattern[i] == '\\' && i+1 < len(pattern) {
			i++ // the escaped character, literally
		}
		re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), key)
	return ok
}
