package redisrepo

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// After kill -9 of a Cluster master, zpulse serves its slots again from the promoted replica
// as soon as the next read after the promotion fails and reloads the slot map (TopologyHeal),
// not at discovery's next sweep: Run is not started here, so nothing else reloads the map
// (go-redis's own reload is once a minute). A reader polls a board on the dead master's slots
// through zpulse every 100 ms, as the watcher polls a page; the test waits for the event (the
// promoted replica answers through zpulse) with a hang guard, and logs the heal time, from the
// promotion (the replica answers ROLE as master) to zpulse's first answer. Then the pages'
// banner notice says Redis failed over.
func TestClusterFailoverHeals(t *testing.T) {
	t.Parallel()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("starts a cluster of six nodes and kills one") // never under CI: there it always runs
	}
	ctx := context.Background()
	c, err := redistest.StartReplicatedCluster()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	svc, err := Open(ctx, OpenOptions{URL: c.URL()}) // the production client, from a REDIS_URL
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if svc.TopologyHeal == nil {
		t.Fatal("no TopologyHeal on a Cluster client")
	}
	dead, promoted := c.Masters[0], c.Replicas[0]
	direct := redis.NewClient(&redis.Options{Addr: dead.Addr, MaxRetries: -1})
	board := ""
	for i := 0; board == ""; i++ { // a board whose key the master to kill serves (slots 0-5460)
		slot, err := direct.ClusterKeySlot(ctx, fmt.Sprintf("leaderboard:b%d", i)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if slot < 16384/redistest.ClusterMasters {
			board = fmt.Sprintf("b%d", i)
		}
	}
	if _, err := svc.Leaderboards.AddPoints(ctx, board, "ann", 42); err != nil {
		t.Fatal(err)
	}
	// The replica has the write before the master dies (WAIT), so the promoted replica's
	// answer is the board's, not an empty one.
	if n, err := direct.Wait(ctx, 1, 10*time.Second).Result(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 = %d, %v", n, err)
	}
	direct.Close()
	read := func() error {
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		e, err := svc.Leaderboards.Player(rctx, board, domain.AllTime, "ann")
		if err == nil && e.Score != 42 {
			return fmt.Errorf("ann has %d points, want 42", e.Score)
		}
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}

	// The banner's notice has read the masters once, so it can tell a new one.
	if err := redistest.Poll(30*time.Second, func() error {
		svc.Notice()
		svc.notice.mu.Lock()
		defer svc.notice.mu.Unlock()
		if svc.notice.masters == nil {
			return fmt.Errorf("the notice has not read the masters yet")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	killed := time.Now()
	dead.Stop() // kill -9
	promotedAt := make(chan time.Time, 1)
	go func() {
		for !redistest.IsMaster(ctx, promoted) {
			time.Sleep(10 * time.Millisecond) // a probe's pace, not a synchronisation
			if time.Since(killed) > time.Minute {
				return
			}
		}
		promotedAt <- time.Now()
	}()
	const hangGuard = time.Minute
	var failed int
	var lastErr error
	for {
		err := read()
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			// The slot is served, by a node that lacks the write: on a loaded machine a
			// failover can lose it despite the WAIT (asynchronous replication, README).
			t.Logf("the promoted replica answers without ann's points: %v", err)
			break
		}
		if err == nil {
			break
		} else {
			failed, lastErr = failed+1, err
		}
		if time.Since(killed) > hangGuard {
			t.Fatalf("zpulse did not serve the dead master's slots from its replica within %v of the kill (%d reads failed, last: %v)", hangGuard, failed, lastErr)
		}
		time.Sleep(100 * time.Millisecond) // the reader's poll interval, as the watcher's
	}
	served := time.Now()
	var at time.Time
	select {
	case at = <-promotedAt:
	case <-time.After(hangGuard):
		t.Fatal("zpulse answered, but the replica never reported itself master")
	}
	if failed == 0 {
		t.Fatal("no read failed after the kill: the master did not die")
	}
	t.Logf("killed → promoted %v; promoted → served through zpulse %v (%d reads failed meanwhile, %d slot-map reloads)",
		at.Sub(killed).Round(time.Millisecond), served.Sub(at).Round(time.Millisecond), failed, svc.TopologyHeal.Reloads())
	if svc.TopologyHeal.Reloads() == 0 {
		t.Error("served again without a reload by TopologyHeal")
	}
	// The pages' banner says Redis failed over, once the promoted replica is among the masters.
	if err := redistest.Poll(hangGuard, func() error {
		if n := svc.Notice(); !strings.Contains(n, "Redis failed over at") {
			return fmt.Errorf("notice %q", n)
		}
		return nil
	}); err != nil {
		t.Fatalf("the banner never said Redis failed over: %v", err)
	}
}
