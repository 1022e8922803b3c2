package redisrepo

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// The /locks page's discovery of lock names, which rides on the watcher's one pipeline:
//   - zpulse's own locks are in the index SET (LockIndex), read on every tick;
//   - locks taken by other services are found by SCAN MATCH lock:* COUNT lockScanCount, one
//     step per tick while a pass is under way, and a new pass every lockScanEvery;
//   - the locks found so far are read (planLockInfo) on the same pipeline.
//
// Names found on one tick are read on the next one, so a new lock shows one poll interval
// after it was taken (a write through zpulse nudges the watcher, which takes two ticks).
// Names of the index whose lock is gone (expired without a release) are removed from it on
// the next tick: a lock taken again meanwhile would then be found by the next SCAN pass.
const (
	lockScanCount = 500
	lockScanEvery = 5 * time.Second
	// lockReadMax bounds the locks read per tick: MaxLocksShown, plus room to count more.
	lockReadMax = 4 * domain.MaxLocksShown
)

type lockDirectory struct {
	mu       sync.Mutex
	indexed  map[string]bool // names in the index at the last read
	scanned  map[string]bool // names found by SCAN and still held at the last read
	cursor   uint64
	passing  bool      // a SCAN pass is under way
	nextPass time.Time // when the next pass starts
	prune    []string  // index names whose lock was gone at the last read
	warm     bool      // the names are known: the index was read, and the first SCAN pass ended
	steps    int       // SCAN steps so far
}

// lockWarmSteps bounds how long the first SCAN pass holds back the first snapshot on a big
// keyspace: after that many steps the locks found so far are shown, the others as found.
const lockWarmSteps = 20

func newLockDirectory() *lockDirectory {
	return &lockDirectory{indexed: map[string]bool{}, scanned: map[string]bool{}}
}

// plan adds this tick's reads on pipe and returns the decoder of the snapshot, which
// reports false on the first tick, when no name is known yet (a snapshot then would wrongly
// say that no lock is held).
func (d *lockDirectory) plan(ctx context.Context, pipe redis.Pipeliner, keys Keys, now time.Time) func() (domain.HeldLocks, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.prune) > 0 {
		pipe.SRem(ctx, keys.LockIndex(), toAny(d.prune)...)
		d.prune = nil
	}
	members := pipe.SMembers(ctx, keys.LockIndex())
	var scan *redis.ScanCmd
	if d.passing || !now.Before(d.nextPass) {
		d.passing = true
		scan = pipe.Scan(ctx, d.cursor, keys.Lock("*"), lockScanCount)
	}
	names := make([]string, 0, len(d.indexed)+len(d.scanned))
	for n := range d.indexed {
		names = append(names, n)
	}
	for n := range d.scanned {
		if !d.indexed[n] {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	more := max(len(names)-lockReadMax, 0)
	names = names[:len(names)-more]
	reads := make([]func() (domain.LockInfo, bool), len(names))
	for i, n := range names {
		reads[i] = planLockInfo(ctx, pipe, keys, n)
	}
	warm := d.warm
	return func() (domain.HeldLocks, bool) {
		d.mu.Lock()
		defer d.mu.Unlock()
		out := domain.HeldLocks{Locks: []domain.LockInfo{}, More: more}
		for i, read := range reads {
			info, held := read()
			switch {
			case held && len(out.Locks) < domain.MaxLocksShown:
				out.Locks = append(out.Locks, info)
			case held:
				out.More++
			default:
				delete(d.scanned, names[i])
				if d.indexed[names[i]] {
					d.prune = append(d.prune, names[i])
				}
			}
		}
		clear(d.indexed)
		for _, n := range members.Val() {
			if domain.ValidateName("lock", n) == nil {
				d.indexed[n] = true
			}
		}
		if scan != nil {
			found, cursor := scan.Val()
			for _, key := range found {
				if n, ok := strings.CutPrefix(key, keys.LockPrefix); ok && domain.ValidateName("lock", n) == nil {
					d.scanned[n] = true
				}
			}
			d.cursor = cursor
			d.steps++
			if cursor == 0 {
				d.passing, d.nextPass = false, now.Add(lockScanEvery)
			}
		}
		d.warm = d.warm || !d.passing || d.steps >= lockWarmSteps
		return out, warm
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
