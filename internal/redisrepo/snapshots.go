package redisrepo

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Snapshots reads the state behind live topics for the watcher.
type Snapshots struct {
	rdb      redis.UniversalClient
	keys     Keys
	limiters *limiterViews
}

// NewSnapshots returns a reader of live topics kept in rdb under keys.
func NewSnapshots(rdb redis.UniversalClient, keys Keys) *Snapshots {
	return &Snapshots{rdb: rdb, keys: keys, limiters: newLimiterViews(keys, nil)}
}

// WithLimiterClock makes limiter views use clock, as the Limiters given the same clock do
// (tests); by default they use Redis TIME.
func (s *Snapshots) WithLimiterClock(clock domain.Clock) *Snapshots {
	s.limiters = newLimiterViews(s.keys, clock)
	return s
}

// Read reads every topic it knows in one pipelined round trip and returns a snapshot per
// topic (domain.BoardTop for board topics, domain.LimiterView for limiter topics; a limiter
// topic is left out of its first read, which learns its policy and clients). Topics it does not know are left out. With no
// known topic it still sends a PING, so the answer always says whether Redis is reachable.
// Returns EUNAVAILABLE when Redis cannot be reached.
func (s *Snapshots) Read(ctx context.Context, topics []string) (map[string]any, error) {
	pipe := s.rdb.Pipeline()
	decoders := make(map[string]func() any, len(topics))
	watchedLimiters := map[string]bool{}
	for _, topic := range topics {
		if board, ok := domain.ParseBoardTopic(topic); ok {
			read := queueTop(ctx, pipe, s.keys, board, domain.BoardTopN)
			decoders[topic] = func() any { return read() }
		}
		if limiter, ok := domain.ParseLimiterTopic(topic); ok {
			read := s.limiters.queueLive(ctx, pipe, limiter)
			decoders[topic] = func() any {
				if view, ok := read(); ok {
					return view
				}
				return nil
			}
			watchedLimiters[limiter] = true
		}
	}
	s.limiters.forget(watchedLimiters)
	if len(decoders) == 0 {
		pipe.Ping(ctx)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, wrap(err)
	}
	snaps := make(map[string]any, len(decoders))
	for topic, decode := range decoders {
		if snap := decode(); snap != nil {
			snaps[topic] = snap
		}
	}
	return snaps, nil
}
