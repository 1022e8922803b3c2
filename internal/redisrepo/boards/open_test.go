package boards

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// newBoards builds Leaderboards on a database of the test's own (redistest.DB, so tests run
// side by side), on a manual clock from testNow.
func newBoards(t *testing.T) (*Leaderboards, *redis.Client, *domain.ManualClock) {
	rdb := redistest.DB(t)
	lb, clock := newBoardsOn(t, rdb)
	return lb, rdb, clock
}

// newBoardsOn is newBoards on a given client (a topology of redistest.ForEachTopologyParallel).
func newBoardsOn(_ *testing.T, rdb redis.UniversalClient) (*Leaderboards, *domain.ManualClock) {
	clock := domain.NewManualClock(testNow)
	return openBoards(rdb, clock), clock
}

// openBoards builds Leaderboards over rdb as redisrepo.Open does (the default keys, a
// discovery of its own, clock; nil is Redis TIME, as in production): another instance.
func openBoards(rdb redis.UniversalClient, clock domain.Clock) *Leaderboards {
	keys := store.DefaultKeys
	return NewLeaderboards(rdb, keys, store.NewDiscovery(rdb, keys, nil), store.Clocks{Script: clock}, domain.DefaultScoreHistory)
}
