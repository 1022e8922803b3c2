// Package redisrepo implements zpulse's domain services on Redis with go-redis v9.
package redisrepo

import (
	"regexp"
	"strconv"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// Keys builds every Redis key zpulse reads or writes; nothing else in zpulse spells a key.
// The defaults are the reference articles' names, so a service written from the articles and
// zpulse share data on one Redis; what only zpulse needs lives under OwnPrefix.
type Keys struct {
	// LeaderboardPrefix precedes a board's name: "leaderboard:" gives leaderboard:game:2048.
	LeaderboardPrefix string
	// OwnPrefix precedes zpulse's own keys: indexes, settings, unique-player counts.
	OwnPrefix string
	// LockPrefix precedes a lock's name: "lock:" gives lock:order:1001, the article's key.
	LockPrefix string
	// QueuePrefix precedes a queue's name: "queue:" gives queue:email-jobs, the article's key.
	QueuePrefix string
}

// DefaultKeys are the articles' key names.
var DefaultKeys = Keys{LeaderboardPrefix: "leaderboard:", OwnPrefix: "zpulse:", LockPrefix: "lock:", QueuePrefix: "queue:"}

// Leaderboard is the ZSET of a board: member = player id, score = points.
func (k Keys) Leaderboard(board string) string { return k.LeaderboardPrefix + board }

// PeriodBoard is the ZSET of a board's period that contains t, e.g.
// leaderboard:game:2048:2026-11-29, leaderboard:game:2048:2026-W48, leaderboard:game:2048:2026-11.
// For AllTime it is the board itself.
func (k Keys) PeriodBoard(board string, p domain.Period, t time.Time) string {
	if p == domain.AllTime {
		return k.Leaderboard(board)
	}
	return k.Leaderboard(board) + ":" + p.Suffix(t)
}

// PeriodBoardPattern matches (SCAN MATCH) every period board of a board, and more: filter
// the names with IsPeriodSuffix. Board names hold no glob characters.
func (k Keys) PeriodBoardPattern(board string) string { return k.Leaderboard(board) + ":*" }

var periodSuffix = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|\d{4}-W\d{2}|\d{4}-\d{2})$`)

// IsPeriodSuffix says whether s (what follows "<board>:") names a day, ISO week or month.
func IsPeriodSuffix(s string) bool { return periodSuffix.MatchString(s) }

// BoardIndex is the SET of board names zpulse has written to.
func (k Keys) BoardIndex() string { return k.OwnPrefix + "index:boards" }

// BoardSettings is the HASH of a board's settings: tie_break, periods, retention_days.
func (k Keys) BoardSettings(board string) string { return k.OwnPrefix + "board:" + board + ":settings" }

// BoardUnique is the HyperLogLog of the players who scored on a board on t's day (UTC).
func (k Keys) BoardUnique(board string, t time.Time) string {
	return k.OwnPrefix + "board:" + board + ":unique:" + domain.Daily.Suffix(t)
}

// BoardUniquePattern matches (SCAN MATCH) every day's unique-player count of a board.
func (k Keys) BoardUniquePattern(board string) string {
	return k.OwnPrefix + "board:" + board + ":unique:*"
}

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
func (k Keys) LockIndex() string { return k.OwnPrefix + "index:locks" }

// Queue is the ZSET of a queue, the article's key: member = job id, score = priority*1e13 +
// enqueue ms (priority queue) or run-at ms (delayed queue).
func (k Keys) Queue(name string) string { return k.QueuePrefix + name }

// The keys beside a queue carry its name in braces: {queue:x}:processing hashes like the
// brace-less queue:x (Redis Cluster hashes the whole name of a key without braces, and only
// the part in braces of one with them), so every queue script stays on one slot while the
// queue keeps the article's name. The braces also keep them out of SCAN MATCH queue:*.
func (k Keys) queueTag(name string) string { return "{" + k.Queue(name) + "}" }

// QueueProcessing is the ZSET of a queue's jobs in flight (DESIGN.md): member = job id,
// score = lease deadline, epoch ms. The reaper returns what is past its deadline.
func (k Keys) QueueProcessing(name string) string { return k.queueTag(name) + ":processing" }

// QueueJobs is the HASH of a queue's payloads (DESIGN.md): job id -> JSON. A payload leaves
// with the ack (or with a poll without lease, or a delete).
func (k Keys) QueueJobs(name string) string { return k.queueTag(name) + ":jobs" }

// QueueDead is zpulse's ZSET of a queue's dead jobs, leased MaxAttempts times without an
// ack: member = job id, score = when it died, epoch ms.
func (k Keys) QueueDead(name string) string { return k.queueTag(name) + ":dead" }

// QueueAttempts is zpulse's HASH of deliveries with a lease per job: job id -> count. It
// lives while the job is waiting for a retry, in flight or dead.
func (k Keys) QueueAttempts(name string) string { return k.queueTag(name) + ":attempts" }

// QueueScores is zpulse's HASH of the score a leased job had in its queue: job id -> score,
// so the reaper returns it to its place and a requeue keeps its priority. It lives while the
// job is in flight or dead.
func (k Keys) QueueScores(name string) string { return k.queueTag(name) + ":scores" }

// QueueSettings is zpulse's HASH of a queue's settings: kind ("priority" or "delayed"),
// max_attempts. Scripts read it in the queue's slot.
func (k Keys) QueueSettings(name string) string { return k.queueTag(name) + ":settings" }

// QueueThroughput is zpulse's HASH of a queue's counts in one minute (the minute of t, UTC):
// "e<second>" jobs enqueued and "c<second>" jobs completed in that second. It expires
// queueThroughputTTL after it was last written.
func (k Keys) QueueThroughput(name string, t time.Time) string {
	return k.queueTag(name) + ":tput:" + strconv.FormatInt(t.Unix()/60, 10)
}

// QueueIndex is the SET of queue names zpulse has written to; queues other services wrote
// are found by a slow, bounded SCAN of queue:*.
func (k Keys) QueueIndex() string { return k.OwnPrefix + "index:queues" }
