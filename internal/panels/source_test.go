package panels_test

import (
	"context"
	"fmt"
	"slices"
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

// adopt saves an adopted lock source over "<tag>lock:" and a sliding-log limiter source over
// "<tag>log:{client}" in svc, lets discovery refresh once (so both patterns are swept, and
// nothing is under them yet), and returns their topics.
func adopt(t *testing.T, svc *redisrepo.Services, tag string) (lock, limiter string) {
	t.Helper()
	ctx := context.Background()
	for _, src := range []domain.Source{
		{Name: tag + "lk", Kind: domain.SourceLock, Key: tag + "lock:"},
		{Name: tag + "rl", Kind: domain.SourceLimiter, Key: tag + "log:{client}", Encoding: domain.SourceSlidingLog, Limit: 5, WindowMs: 60_000},
	} {
		if _, err := svc.Sources.SaveSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Discovery.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return panels.Source.Topic(tag + "lk"), panels.Source.Topic(tag + "rl")
}

// Without keyspace notifications, what another service writes under an adopted source's
// layout shows in the source's panel at the next periodic poll, on one server and with a key
// on each master of the Cluster: a lock under an adopted lock prefix, and a new client's key
// of an adopted limiter. The poll first goes on with discovery's step over the source's
// pattern; it used to wait for discovery's 5 s sweep of the adopted patterns.
func TestAnAdoptedSourcesNewKeyShowsAtTheNextPoll(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		svc := open(t, rdb, nil)
		lockTopic, limiterTopic := adopt(t, svc, "fresh")
		var mu sync.Mutex
		var last map[string]any
		w, _, _ := wiredSeeing(t, svc, func(snaps map[string]any) { mu.Lock(); last = snaps; mu.Unlock() }, lockTopic, limiterTopic)
		poll := func() (lock, limiter domain.SourceView) {
			t.Helper()
			w.Tick(ctx)
			mu.Lock()
			defer mu.Unlock()
			lock, _ = last[lockTopic].(domain.SourceView)
			limiter, _ = last[limiterTopic].(domain.SourceView)
			return lock, limiter
		}
		if lock, limiter := poll(); len(lock.Locks) != 0 || len(limiter.Clients) != 0 {
			t.Fatalf("before any write the panels show %+v and %+v", lock.Locks, limiter.Clients)
		}

		locks := redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return fmt.Sprintf("freshlock:theirs-%d", i) })
		clients := redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return fmt.Sprintf("freshlog:c-%d", i) })
		now, err := rdb.Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range locks {
			if err := rdb.Do(ctx, "set", key, "their-token", "nx", "px", 60000).Err(); err != nil {
				t.Fatal(err)
			}
		}
		for _, key := range clients {
			if err := rdb.ZAdd(ctx, key, redis.Z{Score: float64(now.UnixMilli()), Member: "req-1"}).Err(); err != nil {
				t.Fatal(err)
			}
		}

		lock, limiter := poll()
		var gotLocks, gotClients []string
		for _, l := range lock.Locks {
			gotLocks = append(gotLocks, l.Key)
		}
		for _, c := range limiter.Clients {
			gotClients = append(gotClients, c.Key)
		}
		slices.Sort(gotLocks)
		slices.Sort(gotClients)
		if !slices.Equal(gotLocks, locks) {
			t.Errorf("the poll after another service took %q shows the locks %q", locks, gotLocks)
		}
		if !slices.Equal(gotClients, clients) {
			t.Errorf("the poll after new clients' first requests (%q) shows the clients %q", clients, gotClients)
		}
	})
}

// The step over an adopted source's pattern costs Redis only while it is needed: a poll that
// is not the periodic one (a nudge's, Changed's, and so a page's or the API's read too) and a
// periodic one while keyspace notifications reach discovery send no SCAN; a board source
// (known keys) never does; a periodic poll without them sends each master at most
// store.StepCalls SCANs of COUNT store.ScanCount and MATCH the source's pattern, for each lock
// or limiter source watched. Notified is asked once a poll, its answer shared by the locks
// topic and the sources: after a gap (Heard counts one more), both make their step.
func TestTheAdoptedStepRunsOnlyWhileNeeded(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		var heard atomic.Bool
		var gaps atomic.Uint64
		var asked atomic.Int64
		notified := func() (bool, uint64) { // as notify.Notifier.Heard
			asked.Add(1)
			return heard.Load(), gaps.Load()
		}
		svc := open(t, rdb, notified)
		lockTopic, limiterTopic := adopt(t, svc, "step")
		if _, err := svc.Sources.SaveSource(ctx, domain.Source{Name: "stepsb", Kind: domain.SourceBoard, Key: "stepscores:{yyyymmdd}", Encoding: string(domain.TieBreakNone)}); err != nil {
			t.Fatal(err)
		}
		scans := countScans(t, rdb)
		boardOnly, _, _ := wired(t, svc, panels.Source.Topic("stepsb"))
		boardOnly.Tick(ctx)
		if got := scans.take(); len(got) != 0 {
			t.Errorf("a periodic poll of a board source sent SCANs: %v", got)
		}

		w, _, _ := wired(t, svc, lockTopic, limiterTopic, domain.TopicLocks)
		if _, err := svc.Snapshots.Read(ctx, []string{lockTopic, limiterTopic}, live.Poll{}); err != nil {
			t.Fatal(err)
		}
		if got := scans.take(); len(got) != 0 {
			t.Errorf("a poll of the sources that is not the periodic one sent SCANs: %v", got)
		}
		heard.Store(true)
		w.Tick(ctx)
		if got := scans.take(); len(got) != 0 {
			t.Errorf("a periodic poll of the sources with notifications on sent SCANs: %v", got)
		}

		patterns := []string{"steplock:*", "steplog:*", redisrepo.DefaultKeys.LockPrefix + "*"}
		check := func(when string) {
			t.Helper()
			asked.Store(0)
			w.Tick(ctx)
			if n := asked.Load(); n != 1 {
				t.Errorf("%s: one periodic poll asked Notified %d times, want once", when, n)
			}
			got := scans.take()
			masters := len(redistest.KeyOnEveryMaster(t, rdb, func(i int) string { return fmt.Sprint(i) }))
			if len(got) != masters {
				t.Errorf("%s: SCANs went to %d masters, want %d: %v", when, len(got), masters, got)
			}
			for addr, calls := range got {
				for _, p := range patterns {
					want := fmt.Sprintf("match %s count %d", p, store.ScanCount)
					n := 0
					for _, c := range calls {
						if strings.HasSuffix(c, want) {
							n++
						}
					}
					if n == 0 || n > store.StepCalls {
						t.Errorf("%s: master %q: %d SCANs %q in one step, want 1 to %d (all: %q)", when, addr, n, want, store.StepCalls, calls)
					}
				}
				if len(calls) > len(patterns)*store.StepCalls {
					t.Errorf("%s: master %q: %d SCANs, want at most %d: %q", when, addr, len(calls), len(patterns)*store.StepCalls, calls)
				}
			}
		}
		gaps.Add(1)
		check("after a gap in the notifications")
		heard.Store(false)
		check("without notifications")
	})
}
