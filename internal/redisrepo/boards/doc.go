// Package boards is the leaderboards' room of the Redis adapter (domain.Leaderboards and
// its season and encoding operations): a board is a ZSET per period under the articles' keys,
// written by Lua scripts that keep the index, the unique-player count and the period expiry
// in one step; seasons, period resets and the encoding check live here too.
package boards
