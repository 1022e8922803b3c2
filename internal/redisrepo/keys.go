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
}

// DefaultKeys are the articles' key names.
var DefaultKeys = Keys{
	LeaderboardPrefix: "leaderboard:",
	IndexPrefix:       "zpulse:index:",
}

// Leaderboard is the ZSET of a board: member = player id, score = points.
func (k Keys) Leaderboard(board string) string { return k.LeaderboardPrefix + board }

// BoardIndex is the SET of board names zpulse has written to.
func (k Keys) BoardIndex() string { return k.IndexPrefix + "boards" }
