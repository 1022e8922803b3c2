package locks

import (
	"context"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// The locks topic's names, read on the watcher's one pipeline:
//   - zpulse's own locks are in the index SET (LockIndex), read on every tick, so a lock taken
//     through zpulse shows on the next tick;
//   - locks taken by other services are found by Discovery, at its cadence, or at once through
//     keyspace notifications (Discovery.Saw); without these, the watcher's tick at its poll
//     interval first goes on with discovery's lock step (Discovery.StepLocks: a bounded SCAN
//     of lock:* on every master; its cost is said there), so a new lock shows within one
//     poll (the panel says when: panels.Read.Step). No other read advances discovery: pages
//     and the API only read its snapshot;
//   - the locks known so far are read (planLockInfo) on the same pipeline.
//
// Names of the index whose lock is gone (expired without a release) are removed from it on the
// next tick: a lock taken again meanwhile is then found by discovery.

// lockReadMax bounds the locks read per tick: MaxLocksShown, plus room to count more.
const lockReadMax = 4 * domain.MaxLocksShown

type LockDirectory struct {
	found *store.Discovery

	mu      sync.Mutex
	indexed map[string]bool // Names in the index at the last read
	prune   []string        // index names whose lock was gone at the last read
}

// NewLockDirectory returns the locks topic's reader over found.
func NewLockDirectory(found *store.Discovery) *LockDirectory {
	return &LockDirectory{found: found, indexed: map[string]bool{}}
}

// Plan adds this tick's reads to pipe and returns the decoder of the snapshot, which reports
// false until discovery has run once (a snapshot then would wrongly say that no lock is held).
// It reads discovery's snapshot; with step (the watcher's periodic tick without keyspace
// notifications: panels.Read.Step) it first goes on with discovery's lock step, so a lock
// another service took since the last tick is read in this one.
func (d *LockDirectory) Plan(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, step bool) func() (domain.HeldLocks, bool) {
	if step {
		// A failed step (counted with the command errors on /metrics) leaves the names as they
		// were, and the next poll tries again; an unreachable Redis fails the read below.
		_ = d.found.StepLocks(ctx)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.prune) > 0 {
		pipe.SRem(ctx, keys.LockIndex(), toAny(d.prune)...)
		d.prune = nil
	}
	members := pipe.SMembers(ctx, keys.LockIndex())
	names := d.found.Names(store.KindLock)
	for n := range d.indexed {
		names = append(names, n)
	}
	read := planHeld(ctx, pipe, keys, names)
	warm := d.found.Refreshed()
	return func() (domain.HeldLocks, bool) {
		d.mu.Lock()
		defer d.mu.Unlock()
		out, gone := read()
		for _, n := range gone {
			if d.indexed[n] {
				d.prune = append(d.prune, n)
			}
		}
		clear(d.indexed)
		for _, n := range members.Val() {
			if domain.ValidateKeyName("lock", n) == nil {
				d.indexed[n] = true
			}
		}
		return out, warm
	}
}

// planHeld adds the reads of the locks named (sorted, duplicates once, at most lockReadMax)
// to pipe, and returns the decoder of the locks held among them and the names whose lock is
// gone: the locks topic (LockDirectory.Plan) and Locks.List both read through it.
func planHeld(ctx context.Context, pipe redis.Pipeliner, keys store.Keys, names []string) func() (domain.HeldLocks, []string) {
	slices.Sort(names)
	names = slices.Compact(names)
	more := max(len(names)-lockReadMax, 0)
	names = names[:len(names)-more]
	reads := make([]func() (domain.LockInfo, bool), len(names))
	for i, n := range names {
		reads[i] = planLockInfo(ctx, pipe, keys, n)
	}
	return func() (domain.HeldLocks, []string) {
		out := domain.HeldLocks{Locks: []domain.LockInfo{}, More: more}
		var gone []string
		for i, read := range reads {
			info, held := read()
			switch {
			case held && len(out.Locks) < domain.MaxLocksShown:
				out.Locks = append(out.Locks, info)
			case held:
				out.More++
			default:
				gone = append(gone, names[i])
			}
		}
		return out, gone
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
