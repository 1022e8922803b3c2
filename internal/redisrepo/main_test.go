package redisrepo

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, func(start time.Time) { testNow = start }) }

// testNow is where the tests' clocks start: the first whole minute after the test server's
// Clock (redistest.Main), so what a test dates is a date Redis agrees with.
var testNow time.Time

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

// newBoards opens every service through Open on a database of the test's own and returns the
// boards, on a manual clock from testNow.
func newBoards(t *testing.T) (*boards.Leaderboards, *redis.Client, *domain.ManualClock) {
	rdb := redistest.DB(t)
	lb, clock := newBoardsOn(t, rdb)
	return lb, rdb, clock
}

// newBoardsOn is newBoards on a given client (a topology of redistest.ForEachTopologyParallel).
func newBoardsOn(t *testing.T, rdb redis.UniversalClient) (*boards.Leaderboards, *domain.ManualClock) {
	clock := domain.NewManualClock(testNow)
	return openTest(t, rdb, clock).Leaderboards, clock
}

// allow makes one check of client under policy, failing the test on an error.
func allow(t *testing.T, l *limiters.Limiters, policy, client string) {
	t.Helper()
	if _, err := l.Allow(context.Background(), policy, client); err != nil {
		t.Fatal(err)
	}
}

// ctx is the root's tests' context.
var ctx = context.Background()
