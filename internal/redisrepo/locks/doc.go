// Package locks is the locks' room of the Redis adapter (domain.Locks): the articles' SET NX
// PX lock with zpulse's fencing token, reentrant holds and force-release, the Watchdog that
// renews held leases in batches, Singletons (work that runs in one instance at a time), and
// LockDirectory, the live watcher's reader of the held locks.
package locks
