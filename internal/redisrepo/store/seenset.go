package store

import (
	"sync"
	"time"
)

// BookkeepingRefresh is how often a SeenSet lets idempotent bookkeeping through again for a
// name it already did: the index SADD and the unique-player EXPIREAT heal within it when
// another instance reset the board they were for.
const BookkeepingRefresh = time.Minute

// maxSeen bounds a SeenSet: past it the set starts over, which only costs one more
// bookkeeping command per name.
const maxSeen = 100_000

// SeenSet remembers when this process last did some idempotent bookkeeping for a name (a
// board's SADD to its index, the EXPIREAT of a day's unique players), so a hot path sends it
// about once a minute per name and process instead of once per call. Safe for concurrent use.
type SeenSet struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func NewSeenSet() *SeenSet { return &SeenSet{seen: map[string]time.Time{}} }

// Due says whether name's bookkeeping is to be sent at now.
func (s *SeenSet) Due(name string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.seen[name]
	return !ok || now.Sub(at) >= BookkeepingRefresh || now.Before(at)
}

// Done records that name's bookkeeping went through at now.
func (s *SeenSet) Done(name string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) >= maxSeen {
		clear(s.seen)
	}
	s.seen[name] = now
}

// Forget drops name, when what the bookkeeping recorded was undone (a board's reset).
func (s *SeenSet) Forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, name)
}
