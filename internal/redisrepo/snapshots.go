package redisrepo

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/schedules"
	"github.com/zpulse/zpulse/internal/redisrepo/sources"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// Snapshots reads the state behind live topics for the watcher: each topic's read is its
// panel's (internal/panels), on one pipeline.
type Snapshots struct {
	rdb   redis.UniversalClient
	clock domain.Clock
	rooms *panels.Rooms
}

// newSnapshots returns the live watcher's reader of topics kept in rdb under keys. It keeps
// state between reads (what it learnt of limiters, locks and charts): only the watcher calls
// Read; pages call the services' stateless reads. notified is OpenOptions.Notified, completed
// the completed jobs kept (a job's read shows one while it is kept).
func newSnapshots(rdb redis.UniversalClient, keys store.Keys, found *store.Discovery, c store.Clocks, adopted *sources.Sources, notified func() (on bool, gaps uint64),
	completed domain.CompletedPolicy) *Snapshots {
	views := limiters.NewLimiterViews(keys, c)
	return &Snapshots{rdb: rdb, clock: c.Local(), rooms: &panels.Rooms{Keys: keys, Found: found, Sources: adopted, Notified: notified, Completed: completed,
		Locks: locks.NewLockDirectory(found), Limiters: views, Overview: limiters.NewOverview(views), Charts: history.NewCharts(keys),
		Schedules: schedules.NewDirectory()}}
}

// Rooms is what the panels read and watch through (the watcher's live.Router).
func (s *Snapshots) Rooms() *panels.Rooms { return s.rooms }

// Read reads every topic a panel declares in one pipelined round trip and returns a snapshot
// per topic, of its panel's type (a domain.BoardTop for a board topic, a
// []domain.BoardSummary for TopicBoards, …). Topics no panel reads are left out. A topic
// whose read only learnt what to read (the locks' names, a limiter's policy and clients, a
// limiter's new client: another service's first request) is read again at once, in a second
// round trip of those topics alone, so it shows in this poll rather than the next; what that
// read still lacks is left out. On the watcher's periodic poll (how.Periodic) without keyspace
// notifications, the locks topic first makes its lock step (locks.LockDirectory.Plan: SCANs
// on every master), and an adopted lock or limiter source's topic the step over its pattern
// (panels.Source: Discovery.StepAdopted). With nothing to read it still sends a PING, so the answer always says
// whether Redis is reachable. Returns EUNAVAILABLE when Redis cannot be reached.
func (s *Snapshots) Read(ctx context.Context, topics []string, how live.Poll) (map[string]any, error) {
	snaps := make(map[string]any, len(topics))
	learnt, err := s.read(ctx, topics, how, false, snaps)
	if err == nil && len(learnt) > 0 {
		_, err = s.read(ctx, learnt, how, true, snaps)
	}
	if err != nil {
		return nil, err
	}
	return snaps, nil
}

// read is one round trip of Read: it adds the snapshots of topics to snaps and returns the
// topics whose read only learnt what to read.
func (s *Snapshots) read(ctx context.Context, topics []string, how live.Poll, again bool, snaps map[string]any) ([]string, error) {
	pipe := s.rdb.Pipeline()
	decoders := s.rooms.Plan(ctx, pipe, s.clock.Now(), topics, how, again)
	if pipe.Len() == 0 && !again {
		pipe.Ping(ctx)
	}
	if pipe.Len() > 0 {
		// Only an unreachable Redis fails the read: a command refused for one topic (say a key
		// of another type under leaderboard:) leaves that topic empty, not every page
		// "unavailable".
		if err := store.OpError("redisrepo.Snapshots.read", store.Exec(ctx, s.rdb, pipe)); domain.ErrorCode(err) == domain.EUNAVAILABLE || ctx.Err() != nil {
			return nil, err
		}
	}
	var learnt []string
	for topic, decode := range decoders {
		if snap, ok := decode(); ok {
			snaps[topic] = snap
		} else {
			learnt = append(learnt, topic)
		}
	}
	return learnt, nil
}
