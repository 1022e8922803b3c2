package panels_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// Without keyspace notifications, a lock another service takes under a name zpulse never saw
// (SET lock:<name> <token> NX PX 60000, straight into Redis) shows at the locks topic's next
// periodic poll, on one server and with a lock on each master of the Cluster: the poll first
// goes on with discovery's lock step. It used to wait for discovery's 5 s sweep.
func TestAForeignLockShowsAtTheNextPoll(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		svc := open(t, rdb, nil)
		if err := svc.Discovery.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		w, conn, _ := wired(t, svc, domain.TopicLocks)
		if n := w.Tick(ctx); n != 1 {
			t.Fatalf("the first poll published %d frames, want the locks panel", n)
		}
		next(t, conn)
		keys := redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return redisrepo.DefaultKeys.Lock(fmt.Sprintf("theirs-%d", i)) })
		for _, key := range keys {
			if err := rdb.Do(ctx, "set", key, "their-token", "nx", "px", 60000).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if n := w.Tick(ctx); n != 1 {
			t.Fatalf("the poll after another service took %d locks published %d frames, want the locks panel", len(keys), n)
		}
		// The hub may send the panel's changed rows in several messages.
		var got string
		for _, key := range keys {
			marker := `data-lock="` + strings.TrimPrefix(key, redisrepo.DefaultKeys.LockPrefix) + `"`
			for !strings.Contains(got, marker) {
				got += next(t, conn)
			}
		}
	})
}

// The lock step costs Redis only while it is needed: a poll of other topics, a poll of the
// locks that is not the periodic one (a nudge's, Changed's) and a periodic one while keyspace
// notifications reach discovery send no SCAN; a periodic poll of the locks without them sends
// at most store.StepCalls SCANs of COUNT store.ScanCount and MATCH lock:* to each master.
func TestTheLockStepRunsOnlyWhileNeeded(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		var notified atomic.Bool
		svc := open(t, rdb, func() (bool, uint64) { return notified.Load(), 0 })
		if err := svc.Discovery.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		scans := countScans(t, rdb)
		board := panels.Board.Topic(panels.BoardParams{Board: "game", Period: domain.AllTime, N: 10})
		boardOnly, _, _ := wired(t, svc, board)
		boardOnly.Tick(ctx)
		if got := scans.take(); len(got) != 0 {
			t.Errorf("a periodic poll nobody watches the locks in sent SCANs: %v", got)
		}
		locks, _, _ := wired(t, svc, domain.TopicLocks)
		if _, err := svc.Snapshots.Read(ctx, []string{domain.TopicLocks}, live.Poll{}); err != nil {
			t.Fatal(err)
		}
		if got := scans.take(); len(got) != 0 {
			t.Errorf("a poll of the locks that is not the periodic one sent SCANs: %v", got)
		}
		notified.Store(true)
		locks.Tick(ctx)
		if got := scans.take(); len(got) != 0 {
			t.Errorf("a periodic poll of the locks with notifications on sent SCANs: %v", got)
		}
		notified.Store(false)
		locks.Tick(ctx)
		got := scans.take()
		masters := len(redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return fmt.Sprint(i) }))
		if len(got) != masters {
			t.Errorf("a periodic poll of the locks without notifications sent SCANs to %d masters, want %d: %v", len(got), masters, got)
		}
		want := fmt.Sprintf("match %s* count %d", redisrepo.DefaultKeys.LockPrefix, store.ScanCount)
		for addr, calls := range got {
			if len(calls) > store.StepCalls {
				t.Errorf("master %q: %d SCANs in one step, want at most %d", addr, len(calls), store.StepCalls)
			}
			for _, c := range calls {
				if !strings.HasSuffix(c, want) {
					t.Errorf("master %q: %q, want a SCAN with %q", addr, c, want)
				}
			}
		}
	})
}

// scans counts the SCAN calls sent to each master of rdb (one server: ""), with their
// arguments, from now on.
type scans struct {
	mu sync.Mutex
	by map[string][]string
}

func countScans(t *testing.T, rdb redis.UniversalClient) *scans {
	t.Helper()
	s := &scans{by: map[string][]string{}}
	hook := func(addr string) redis.Hook {
		return redistest.HookAfter(func(cmd redis.Cmder) {
			if cmd.Name() == "scan" {
				s.mu.Lock()
				s.by[addr] = append(s.by[addr], strings.TrimSuffix(strings.TrimPrefix(fmt.Sprint(cmd.Args()), "["), "]"))
				s.mu.Unlock()
			}
		})
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		if err := c.ForEachMaster(context.Background(), func(_ context.Context, node *redis.Client) error {
			node.AddHook(hook(node.Options().Addr))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	case *redis.Client:
		c.AddHook(hook(""))
	}
	return s
}

// take returns the calls counted since the last take.
func (s *scans) take() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.by
	s.by = map[string][]string{}
	return got
}
