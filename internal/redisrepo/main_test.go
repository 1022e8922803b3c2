package redisrepo

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// testNow is where the tests' clocks start: a Sunday, the last day of ISO week 2026-W48.
var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newBoards(t *testing.T) (*Leaderboards, *redis.Client, *domain.ManualClock) {
	rdb := redistest.Client(t)
	clock := domain.NewManualClock(testNow)
	return NewLeaderboards(rdb, DefaultKeys, clock, NewCatalog(rdb, DefaultKeys)), rdb, clock
}
