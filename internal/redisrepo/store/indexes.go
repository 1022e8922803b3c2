package store

import (
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"
)

// zpulse's own index keys (the SETs of the names it wrote, the HASH of adopted sources) are
// read by every list and the overview. One holding another type (a key another service or a
// person wrote at that name) is read as empty, as a board's key of another type is shown
// marked in a list: the lists answer what discovery finds, with a note naming the key (Notes),
// rather than a 409 for everyone.

// misfitIndexes are the index keys last read as another type, by the client that read them
// (one per Redis zpulse talks to): client → key → true.
var misfitIndexes = struct {
	sync.Mutex
	keys map[redis.UniversalClient]map[string]bool
}{keys: map[redis.UniversalClient]map[string]bool{}}

// IndexOfAnotherType says whether err is the WRONGTYPE reply to rdb's read of the index key,
// and then remembers it for IndexNotes (and logs it once); false for any other error.
func IndexOfAnotherType(rdb redis.UniversalClient, key string, err error) bool {
	if !redis.HasErrorPrefix(err, "WRONGTYPE") {
		return false
	}
	misfitIndexes.Lock()
	defer misfitIndexes.Unlock()
	if misfitIndexes.keys[rdb] == nil {
		misfitIndexes.keys[rdb] = map[string]bool{}
	}
	if !misfitIndexes.keys[rdb][key] {
		slog.Warn("one of zpulse's index keys holds another Redis type: read as empty", "key", key)
		misfitIndexes.keys[rdb][key] = true
	}
	return true
}

// IndexReadOK forgets a note on key: rdb read it as its own type again.
func IndexReadOK(rdb redis.UniversalClient, key string) {
	misfitIndexes.Lock()
	delete(misfitIndexes.keys[rdb], key)
	misfitIndexes.Unlock()
}

// IndexNotes are the notes a page shows about the index keys rdb last read as another type.
func IndexNotes(rdb redis.UniversalClient) []string {
	misfitIndexes.Lock()
	keys := slices.Sorted(maps.Keys(misfitIndexes.keys[rdb]))
	misfitIndexes.Unlock()
	notes := make([]string, len(keys))
	for i, k := range keys {
		notes[i] = "zpulse's index key " + k + " holds another Redis type than the one zpulse keeps there: it is read as empty, so this list shows only what discovery finds. Delete or rename that key to restore it."
	}
	return notes
}

// indexesOfAnotherType says whether every read of indexes (a pipeline's SMEMBERS, nil
// for none) met a key of another type: those are read as empty.
func (d *Discovery) indexesOfAnotherType(indexes []*redis.StringSliceCmd) bool {
	for _, c := range indexes {
		if c == nil {
			continue
		}
		key, _ := c.Args()[1].(string)
		if c.Err() == nil {
			IndexReadOK(d.rdb, key)
		} else if !IndexOfAnotherType(d.rdb, key, c.Err()) {
			return false
		}
	}
	return true
}
