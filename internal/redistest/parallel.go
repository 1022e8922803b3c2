package redistest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterTurn is held by the test that has the package's cluster: a Cluster has database 0
// only, and ClusterClient flushes every master, so tests that run side by side take it in turns.
var clusterTurn sync.Mutex

// ClusterTurn waits until no other test of the package holds the cluster, then returns
// ClusterClient(t) and holds the cluster until t ends. Tests that call t.Parallel use it (or
// ForEachTopologyParallel) instead of ClusterClient: their single-server parts run side by
// side on databases of their own (DB) while their cluster parts run one at a time.
func ClusterTurn(t testing.TB) *redis.ClusterClient {
	t.Helper()
	clusterTurn.Lock()
	t.Cleanup(clusterTurn.Unlock)
	return ClusterClient(t)
}

// ForEachTopologyParallel is ForEachTopology for tests that run side by side: both subtests
// call t.Parallel; "single" gets a database of its own (DB), "cluster" the cluster in its turn
// (ClusterTurn).
func ForEachTopologyParallel(t *testing.T, f func(t *testing.T, rdb redis.UniversalClient)) {
	t.Helper()
	t.Run("single", func(t *testing.T) { t.Parallel(); f(t, DB(t)) })
	t.Run("cluster", func(t *testing.T) { t.Parallel(); f(t, ClusterTurn(t)) })
}

// KeysOnEveryMaster returns the keys matching pattern on every master (one server: itself),
// read by SCAN and sorted: KEYS on a Cluster client would ask one node only.
func KeysOnEveryMaster(t testing.TB, rdb redis.UniversalClient, pattern string) []string {
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
		t.Fatalf("redistest.KeysOnEveryMaster: a %T", rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}

// KeyOnEveryMaster returns, for each master (one server: itself), the first of key(0), key(1),
// … whose slot that master serves, sorted: a test writing them has a key on every master.
func KeyOnEveryMaster(t testing.TB, rdb redis.UniversalClient, key func(i int) string) []string {
	t.Helper()
	c, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return []string{key(0)}
	}
	ctx := context.Background()
	var mu sync.Mutex
	found := map[string]string{} // master -> its key, "" until found
	if err := c.ForEachMaster(ctx, func(_ context.Context, node *redis.Client) error {
		mu.Lock()
		found[node.Options().Addr] = ""
		mu.Unlock()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := 0; len(keys) < len(found); i++ {
		if i == 100_000 {
			t.Fatalf("redistest.KeyOnEveryMaster: %d masters of %d in 100,000 keys", len(keys), len(found))
		}
		node, err := c.MasterForKey(ctx, key(i))
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := found[node.Options().Addr]; ok && k == "" {
			found[node.Options().Addr] = key(i)
			keys = append(keys, key(i))
		}
	}
	slices.Sort(keys)
	return keys
}

// SameCalendarYear returns the first year from year on, in steps of 28 (the Gregorian
// calendar's weekdays and ISO weeks repeat every 28 years between 1901 and 2099), whose
// November is not yet past at now (a package's test clock start): a test that needs one
// calendar's shape (a Sunday ending ISO week 48, a week 53) writes it in a year Redis has not
// reached.
func SameCalendarYear(now time.Time, year int) int {
	for time.Date(year, 11, 1, 0, 0, 0, 0, time.UTC).Before(now) {
		year += 28
	}
	return year
}
