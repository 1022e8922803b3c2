package store

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// The lock step: a lock another service takes (SET lock:<name> <token> NX PX <ms>) under a
// name zpulse never saw is found by the sweep, every DiscoveryEvery, or at once by Saw when
// keyspace notifications reach zpulse. Without them (off, refused, or lost), the watcher's
// tick at its poll interval calls StepLocks while the locks topic has viewers
// (locks.LockDirectory), so such a lock shows within one poll. Like Saw, the step only adds
// names: a lock gone is the sweep's to drop (and the locks topic reads it as not held).
//
// What it costs Redis, per poll and per master: at most LockStepCalls SCAN calls of COUNT
// ScanCount with MATCH on the lock prefix (lock:*), so at most 2,000 keys looked at; one call
// on a master of fewer than ScanCount keys. A SCAN costs the server about its keys looked at
// (measured on Redis 7.0.15, on a loaded 2-core machine: 0.3 ms a call of 1,000 keys on a
// small keyspace, 0.8 ms on one of 100,000 keys), so at most about 1.7 ms a poll per master:
// 6.6 ms a second at the default 250 ms poll, only while someone views the locks (/locks or the
// overview) and notifications do not bring new locks. Its own cursor per master goes on where
// the last step stopped and starts over once a pass ended, so on a master of up to
// LockStepCalls*ScanCount keys every step is a whole pass (a lock held when the tick starts is
// found in that tick), and a larger one is covered in ⌈keys/2,000⌉ polls (the sweep covers
// 20,000 keys a master in 5 s).

// LockStepCalls bounds the SCAN calls of one lock step on one master.
const LockStepCalls = 2

// StepLocks goes on with the lock step on every master (see above): the lock names found
// are known at once, as Saw's are, and kept as a sweep's finds are. Only the watcher's
// periodic tick calls it; reads (pages, the API) never do. Returns EUNAVAILABLE; what the
// masters that answered gave is kept.
func (d *Discovery) StepLocks(ctx context.Context) error {
	const op = "redisrepo.Discovery.StepLocks"
	d.stepping.Lock()
	defer d.stepping.Unlock()
	s := d.lockStep
	masters := map[string]bool{} // the masters of now: a pass on one that left is dropped
	err := d.eachMaster(ctx, func(ctx context.Context, addr string, node redis.Cmdable) error {
		d.mu.Lock()
		masters[addr] = true
		d.mu.Unlock()
		_, err := d.stepSweep(ctx, s, addr, node)
		return err
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	for name := range s.seen {
		d.sweeps[KindLock].remember(name)
	}
	clear(s.seen)
	for addr, done := range s.done { // a pass that ended starts over at the next step
		if done || !masters[addr] {
			delete(s.done, addr)
			delete(s.cursors, addr)
		}
	}
	if err != nil {
		return OpError(op, err)
	}
	return nil
}
