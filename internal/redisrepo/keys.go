// Package redisrepo implements zpulse's domain services on Redis with go-redis v9.
package redisrepo

// Keys builds every Redis key zpulse reads or writes; nothing else in zpulse spells a key.
// The defaults are the reference articles' names, so a service written from the articles and
// zpulse share data on one Redis.
type Keys struct {
	// LeaderboardPrefix precedes a board's name: "leaderboard:" gives leaderboard:game:2048.
	LeaderboardPrefix string
	// IndexPrefix precedes zpulse's own small index sets (names of what zpulse wrote to).
	IndexPrefix string
	// LockPrefix precedes a lock's name: "lock:" gives lock:order:1001, the article's key.
	LockPrefix string
}

// DefaultKeys are the articles' key names.
var DefaultKeys = Keys{
	LeaderboardPrefix: "leaderboard:",
	IndexPrefix:       "zpulse:index:",
	LockPrefix:        "lock:",
}

// Leaderboard is the ZSET of a board: member = player id, score = points.
func (k Keys) Leaderboard(board string) string { return k.LeaderboardPrefix + board }

// BoardIndex is the SET of board names zpulse has written to.
func (k Keys) BoardIndex() string { return k.IndexPrefix + "boards" }

// Lock is the STRING of a lock, exactly the article's: the holder's token, with a PX lease.
// Another service's SET lock:<name> <uuid> NX EX 30 and zpulse's acquire exclude each other.
func (k Keys) Lock(name string) string { return k.LockPrefix + name }

// LockMeta is zpulse's own HASH beside a lock: owner (the token it describes), holds (the
// reentrancy count, Redisson's owner -> count), ttl_ms and watchdog. It carries the same PX
// as the lock. The braces make it hash like the lock key itself ({lock:x}:meta hashes
// "lock:x", as does the brace-less lock:x), so every lock script stays on one Redis Cluster
// slot while lock:<name> keeps the article's name. The braces also keep these keys out of
// SCAN MATCH lock:*, which then finds locks only.
func (k Keys) LockMeta(name string) string { return "{" + k.Lock(name) + "}:meta" }

// LockFence is the lock's fencing counter (STRING, no expiry; kept by force-release), in the
// lock's slot for the same reason as LockMeta.
func (k Keys) LockFence(name string) string { return "{" + k.Lock(name) + "}:fence" }

// LockIndex is the SET of lock names zpulse has taken, so the /locks page finds them at once;
// locks taken by other services are found by a slow, bounded SCAN of lock:*.
func (k Keys) LockIndex() string { return k.IndexPrefix + "locks" }
