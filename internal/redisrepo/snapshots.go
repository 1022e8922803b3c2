package redisrepo

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
)

// Snapshots reads the state behind live topics for the watcher.
type Snapshots struct {
	rdb   redis.UniversalClient
	keys  Keys
	locks *lockDirectory // names behind the locks topic, discovered across ticks
}

// NewSnapshots returns a reader of live topics kept in rdb under keys.
func NewSnapshots(rdb redis.UniversalClient, keys Keys) *Snapshots {
	return &Snapshots{rdb: rdb, keys: keys, locks: newLockDirectory()}
}

// Read reads every topic it knows in one pipelined round trip and returns a snapshot per
// topic (domain.BoardTop for board topics). Topics it does not know are left out. With no
// known topic it still sends a PING, so the answer always says whether Redis is reachable.
// Returns EUNAVAILABLE when Redis cannot be reached.
func (s *Snapshots) Read(ctx context.Context, topics []string) (map[string]any, error) {
	pipe := s.rdb.Pipeline()
	decoders := make(map[string]func() any, len(topics))
	for _, topic := range topics {
		if board, ok := domain.ParseBoardTopic(topic); ok {
			read := queueTop(ctx, pipe, s.keys, board, domain.BoardTopN)
			decoders[topic] = func() any { return read() }
		}
		if topic == domain.TopicLocks {
			read := s.locks.queue(ctx, pipe, s.keys, time.Now())
			decoders[topic] = func() any {
				if held, ok := read(); ok {
					return held
				}
				return nil // the names are not known yet: nothing to publish this tick
			}
		}
	}
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
