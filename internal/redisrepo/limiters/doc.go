// Package limiters is the rate limiters' room of the Redis adapter (domain.Limiters): the
// articles' sliding logs and zpulse's other algorithms, each a Lua script over one key with
// one clock, the policies and the clients seen, and the live readers of one limiter
// (LimiterViews) and of all (Overview).
package limiters
