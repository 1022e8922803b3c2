package redisrepo

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// testNow is where the tests' clocks start: a Sunday, the last day of ISO week 2026-W48.
var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// openTest builds every service over rdb through Open, the production wiring, with clock
// (nil: Redis TIME, as in production).
func openTest(t testing.TB, rdb redis.UniversalClient, clock domain.Clock) *Services {
	t.Helper()
	svc, err := Open(context.Background(), OpenOptions{Client: rdb, Clock: clock, TakePool: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func newBoards(t *testing.T) (*Leaderboards, *redis.Client, *domain.ManualClock) {
	rdb := redistest.Client(t)
	clock := domain.NewManualClock(testNow)
	return openTest(t, rdb, clock).Leaderboards, rdb, clock
}
