package redisrepo

import (
	"github.com/zpulse/zpulse/internal/redisrepo/boards"

	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, func(start time.Time) { testNow = start }) }

// testNow is where the tests' clocks start: the first whole minute after the test server's
// Clock (redistest.Main), so what a test dates is a date Redis agrees with.
var testNow time.Time

// sameCalendarYear returns the first year from year on, in steps of 28 (the Gregorian
// calendar's weekdays and ISO weeks repeat every 28 years between 1901 and 2099), whose
// November is not yet past by testNow: a test that needs one calendar's shape (a Sunday ending
// ISO week 48, a week 53) writes it in a year Redis has not reached.
func sameCalendarYear(year int) int {
	for time.Date(year, 11, 1, 0, 0, 0, 0, time.UTC).Before(testNow) {
		year += 28
	}
	return year
}

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

func newBoards(t *testing.T) (*boards.Leaderboards, *redis.Client, *domain.ManualClock) {
	rdb := redistest.Client(t)
	lb, clock := newBoardsOn(t, rdb)
	return lb, rdb, clock
}

// newBoardsOn is newBoards on a given client (a topology of redistest.ForEachTopology).
func newBoardsOn(t *testing.T, rdb redis.UniversalClient) (*boards.Leaderboards, *domain.ManualClock) {
	clock := domain.NewManualClock(testNow)
	return openTest(t, rdb, clock).Leaderboards, clock
}

// keysOnEveryMaster returns the keys matching pattern on every master (one server: itself),
// read by SCAN: KEYS on a Cluster client would ask one node only.
func keysOnEveryMaster(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	var mu sync.Mutex
	var keys []string
	scan := func(ctx context.Context, node *redis.Client) error {
		iter := node.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			keys = append(keys, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(context.Background(), scan)
	case *redis.Client:
		err = scan(context.Background(), c)
	default:
		t.Fatalf("keysOnEveryMaster: a %T", rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}
