package store

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// The step: a key another service writes under a name zpulse never saw is found by the
// sweep, every DiscoveryEvery, or at once by Saw when keyspace notifications reach zpulse.
// Without them (off, refused, or lost), the watcher's tick at its poll interval first makes
// a step over what its topics list by pattern, so such a key shows within one poll:
//   - StepLocks, over the lock prefix (lock:*), while the locks topic has viewers
//     (locks.LockDirectory): a lock another service took (SET lock:<name> <token> NX PX <ms>);
//   - StepAdopted, over one adopted lock or limiter source's pattern (its ScanPattern), while
//     that source's live panel has viewers (panels.Source): another service's new lock under
//     the source's prefix, or a limiter's new client key.
//
// Like Saw, a step only adds names: a key gone is the sweep's to drop (the panels read it as
// not held, or as no request).
//
// What it costs Redis, per poll and per master, for each pattern stepped (the lock prefix,
// and each adopted lock or limiter source someone views): at most StepCalls SCAN calls of
// COUNT ScanCount with MATCH on the pattern, so at most 2,000 keys looked at; one call on a
// master of fewer than ScanCount keys. A SCAN costs the server about its keys looked at (the
// figures: docs/performance.md), and it runs only while someone views the locks (/locks or
// the overview) or the source, and notifications do not bring new keys.
// Each pattern's step has its own cursor per master (apart from the sweep's), which goes on
// where the last step stopped and starts over once a pass ended, so on a master of up to
// StepCalls*ScanCount keys every step is a whole pass (a key there when the tick starts is
// found in that tick), and a larger one is covered in ⌈keys/2,000⌉ polls (the sweep covers
// 20,000 keys a master in 5 s).

// StepCalls bounds the SCAN calls of one step on one master.
const StepCalls = 2

// StepLocks goes on with the lock step on every master (see above): the lock names found
// are known at once, as Saw's are, and kept as a sweep's finds are. Only the watcher's
// periodic tick calls it; reads (pages, the API) never do. Returns EUNAVAILABLE; what the
// masters that answered gave is kept.
func (d *Discovery) StepLocks(ctx context.Context) error {
	const op = "store.Discovery.StepLocks"
	return OpError(op, d.stepOwn(ctx, func() (step, into *sweep) { return d.lockStep, d.sweeps[KindLock] }))
}

// StepAdopted goes on with the step over an adopted source's pattern (domain.Source's
// ScanPattern; "" does nothing) on every master (see above): the keys found are in
// AdoptedKeys at once, as Saw's are, and kept as a sweep's finds are. A pattern no refresh
// read yet (a source saved since) is swept from then on too, until a refresh finds no source
// declares it. Only the watcher's periodic tick calls it; reads (pages, the API) never do.
// Returns EUNAVAILABLE; what the masters that answered gave is kept.
func (d *Discovery) StepAdopted(ctx context.Context, pattern string) error {
	const op = "store.Discovery.StepAdopted"
	if pattern == "" {
		return nil
	}
	return OpError(op, d.stepOwn(ctx, func() (step, into *sweep) {
		if d.adopted[pattern] == nil {
			d.adopted[pattern] = newSweep(&sweep{pattern: pattern})
		}
		if d.adoptedStep[pattern] == nil {
			d.adoptedStep[pattern] = newSweep(&sweep{pattern: pattern, calls: StepCalls})
		}
		return d.adoptedStep[pattern], d.adopted[pattern]
	}))
}

// stepOwn makes one step of a step's own sweep on every master and remembers what it saw in
// the sweep whose names the reads list (into). sweeps picks both, called with d.mu held.
func (d *Discovery) stepOwn(ctx context.Context, sweeps func() (step, into *sweep)) error {
	d.stepping.Lock()
	defer d.stepping.Unlock()
	d.mu.Lock()
	s, into := sweeps()
	d.mu.Unlock()
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
	for id := range s.seen {
		into.remember(id)
	}
	clear(s.seen)
	for addr, done := range s.done { // a pass that ended starts over at the next step
		if done || !masters[addr] {
			delete(s.done, addr)
			delete(s.cursors, addr)
		}
	}
	return err
}
