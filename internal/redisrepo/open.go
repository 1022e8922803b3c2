package redisrepo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/audit"
	"github.com/zpulse/zpulse/internal/redisrepo/auth"
	"github.com/zpulse/zpulse/internal/redisrepo/boards"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redisrepo/limiters"
	"github.com/zpulse/zpulse/internal/redisrepo/locks"
	"github.com/zpulse/zpulse/internal/redisrepo/notify"
	"github.com/zpulse/zpulse/internal/redisrepo/queues"
	"github.com/zpulse/zpulse/internal/redisrepo/schedules"
	"github.com/zpulse/zpulse/internal/redisrepo/sources"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
)

// OpenOptions say which Redis Open opens and how it builds the services.
type OpenOptions struct {
	// URL is a REDIS_URL (see Connect): one server, a Cluster, or Sentinel. Empty starts the
	// embedded in-memory Redis, unless Client is set.
	URL string
	// Client is an open client to use instead of URL (tests). Close does not close it.
	Client redis.UniversalClient
	// Keys name every key; the zero value is DefaultKeys.
	Keys Keys
	// Clock is every store's one clock. nil (production): scripts read Redis TIME and local
	// decisions the system clock; tests pass a domain.ManualClock, used for both.
	Clock domain.Clock
	// TakePool bounds the connections of blocking takes (BZPOPMIN); 0 is 64.
	TakePool int
	// Log receives the services' messages; nil discards them.
	Log *slog.Logger
	// SingletonTimings are the singleton loops' lease and retry; zero fields are
	// locks.SingletonLease and locks.SingletonRetry (tests shorten them).
	SingletonTimings locks.SingletonTimings
	// WaitReplicas, when not 0, makes an enqueue and a lock acquisition wait (WAIT, up to a
	// second) until that many replicas have them, so a failover right after keeps them;
	// fewer confirm: EUNAVAILABLE (a lock is given back). 0..MaxWaitReplicas.
	WaitReplicas int
	// Notifications is the keyspace notifications' mode (--live-notifications) of the
	// Notifier Open makes; "": notify.Off.
	Notifications notify.Mode
	// Notified stands in for the Notifier's Heard in tests: whether keyspace notifications
	// are on, and how many subscriptions (re)started so far. While they are on with no new
	// gap, every new lock or adopted source's key is known at once, and the watcher's
	// periodic poll leaves out discovery's steps (the locks topic's store.Discovery.StepLocks,
	// an adopted source's StepAdopted). Only the watcher's poll (Snapshots.Read) calls it,
	// once a read (panels.Read.Step). nil: the Notifier's.
	Notified func() (on bool, gaps uint64)
	// AuditMaxEntries and AuditMaxAge cap the audit trail; zero values are
	// audit.DefaultMaxEntries and audit.DefaultMaxAge.
	AuditMaxEntries int64
	AuditMaxAge     time.Duration
	// Completed is how many completed jobs an ack keeps per queue, and for how long; the
	// zero value is domain.DefaultCompletedPolicy. Open refuses one that does not validate.
	Completed domain.CompletedPolicy
	// ScoreHistory is the events a board's score history keeps (--score-history); 0 is
	// domain.DefaultScoreHistory, a negative number keeps none.
	ScoreHistory int64
}

// Keys name every key zpulse reads or writes (store.Keys, built in store/keys.go).
type Keys = store.Keys

// DefaultKeys are the keys of the default prefixes.
var DefaultKeys = store.DefaultKeys

// IndexNotes are the notes pages show about zpulse's own index keys these services last read
// as another type (store.IndexNotes): read as empty, the lists show what discovery finds.
func (s *Services) IndexNotes() []string { return store.IndexNotes(s.Client) }

// MaxWaitReplicas bounds OpenOptions.WaitReplicas.
const MaxWaitReplicas = store.MaxWaitReplicas

// defaultTakePool: that many takes can wait at once; more wait for a connection (go-redis's
// pool timeout), never the dashboard.
const defaultTakePool = 64

// Services are every Redis-backed service of zpulse, built by Open over one client.
type Services struct {
	Client   redis.UniversalClient
	Embedded bool // the data lives in an in-memory Redis that ends with the process

	Leaderboards *boards.Leaderboards
	Queues       *queues.Queues
	Limiters     *limiters.Limiters
	Locks        *locks.Locks
	Sources      *sources.Sources
	Singletons   *locks.Singletons
	Demo         *DemoSwitch
	// History records (in one instance, RunRecorder under Singletons) and reads charts' data.
	History *history.History
	// Business is /metrics' read of queues, limiters, locks and boards.
	Business *history.Business
	// CommandErrors counts the commands of Client that failed, by command.
	CommandErrors *store.CommandErrors
	// TopologyHeal, on a Cluster, reloads the slot map at once when a command's error says it
	// may be wrong (a dead master, MOVED…), so a promoted replica serves through zpulse within
	// store.HealEvery of the next failed command; nil on one server and Sentinel (go-redis's
	// failover client follows +switch-master itself).
	TopologyHeal *store.TopologyHeal
	// Auth keeps admin sessions and the sign-in attempt counters.
	Auth *auth.Auth
	// Audit keeps the audit trail of change requests.
	Audit *audit.Trail
	// Snapshots is the live watcher's reader, and only its: it keeps state between reads.
	Snapshots *Snapshots
	// Discovery finds boards, queues, locks and limiter clients by bounded SCAN (Run drives it).
	Discovery *store.Discovery
	// Notifier follows keyspace notifications (OpenOptions.Notifications), which it tells
	// Discovery of; the caller runs it (Notifier.Run) with the watcher's handlers.
	Notifier *notify.Notifier
	// Keys names the keys for people, for pages that explain where data lives.
	Keys domain.KeyDisplay
	// Schedules keeps recurring schedules; one instance runs them (Schedules.Run under
	// Singletons' "schedules" loop).
	Schedules *schedules.Schedules

	closers   []func() error
	sentinels *sentinels // behind Sentinel (from a URL): who names the master, for Health
	notice    healthNotice
	stop      context.CancelFunc // ends the embedded Redis's clock
	done      sync.WaitGroup
}

// Open opens Redis and builds every service on it. The client is not checked: call Ping to
// find out whether Redis answers. Run the background loops with Run, and Close at the end.
func Open(ctx context.Context, opt OpenOptions) (*Services, error) {
	if opt.Keys == (store.Keys{}) {
		opt.Keys = store.DefaultKeys
	}
	if opt.TakePool == 0 {
		opt.TakePool = defaultTakePool
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := store.ValidateWaitReplicas(opt.WaitReplicas); err != nil {
		return nil, fmt.Errorf("redisrepo.Open: %w", err)
	}
	completed := opt.Completed
	if completed == (domain.CompletedPolicy{}) {
		completed = domain.DefaultCompletedPolicy
	}
	if err := completed.Validate(); err != nil {
		return nil, fmt.Errorf("redisrepo.Open: %w", err)
	}
	scores := opt.ScoreHistory
	switch {
	case scores == 0:
		scores = domain.DefaultScoreHistory
	case scores < 0:
		scores = 0
	case scores > domain.MaxScoreHistory:
		return nil, fmt.Errorf("redisrepo.Open: score history must keep at most %d events a board (got %d)", domain.MaxScoreHistory, scores)
	}
	s := &Services{Client: opt.Client}
	switch {
	case opt.Client != nil:
	case opt.URL != "":
		rdb, err := Connect(opt.URL)
		if err != nil {
			return nil, fmt.Errorf("redisrepo.Open: %w", err)
		}
		s.Client = rdb
		s.closers = append(s.closers, rdb.Close)
		if cfg, _ := parseRedisURL(opt.URL); cfg != nil && cfg.MasterName != "" {
			s.sentinels = newSentinels(cfg)
			s.closers = append(s.closers, s.sentinels.Close)
		}
	default:
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("redisrepo.Open: start the embedded redis: %w", err)
		}
		rdb, err := Connect("redis://" + m.Addr())
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("redisrepo.Open: %w", err)
		}
		clockCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		s.stop = stop
		s.done.Go(func() { keepTime(clockCtx, m) })
		s.Client, s.Embedded = rdb, true
		s.closers = append(s.closers, rdb.Close, func() error { m.Close(); return nil })
		opt.Log.Warn("no REDIS_URL: using an embedded in-memory Redis; data lives in memory and is lost when zpulse stops", "addr", m.Addr())
	}
	rdb, keys, c := s.Client, opt.Keys, store.Clocks{Script: opt.Clock}
	blocking := queues.NewBlockingClient(rdb, opt.TakePool)
	if blocking != rdb {
		s.closers = append([]func() error{blocking.Close}, s.closers...)
	}
	replicas := store.ReplicaWait{N: opt.WaitReplicas}
	s.Keys = keys.Display()
	s.Limiters = limiters.NewLimiters(rdb, keys, c)
	s.Discovery = store.NewDiscovery(rdb, keys, func(ctx context.Context, keys []string) { _ = s.Limiters.AdoptClients(ctx, keys) })
	s.Leaderboards = boards.NewLeaderboards(rdb, keys, s.Discovery, c, scores)
	s.Queues = queues.NewQueues(rdb, blocking, keys, s.Discovery, c, replicas, completed)
	s.Locks = locks.NewLocks(rdb, keys, s.Discovery, c, replicas)
	s.Singletons = locks.NewSingletons(s.Locks, keys, opt.Log, opt.SingletonTimings)
	s.Schedules = schedules.NewSchedules(rdb, keys, s.Queues, c)
	s.Demo = newDemoSwitch(rdb, keys)
	s.Auth = auth.NewAuth(rdb, keys, c)
	s.Audit = audit.NewTrail(rdb, keys, opt.AuditMaxEntries, opt.AuditMaxAge)
	s.Sources = sources.NewSources(rdb, keys, s.Discovery, c)
	if opt.Notifications == "" {
		opt.Notifications = notify.Off
	}
	s.Notifier = notify.New(rdb, notify.Options{Mode: opt.Notifications, Keys: keys, Discovery: s.Discovery, Embedded: s.Embedded, Log: opt.Log})
	if opt.Notified == nil {
		opt.Notified = s.Notifier.Heard
	}
	s.Snapshots = newSnapshots(rdb, keys, s.Discovery, c, s.Sources, opt.Notified, completed)
	s.History = history.NewHistory(rdb, keys, s.Discovery, c)
	s.Business = history.NewBusiness(rdb, keys, s.Discovery, c)
	s.CommandErrors = &store.CommandErrors{}
	rdb.AddHook(s.CommandErrors)
	if cluster, ok := rdb.(*redis.ClusterClient); ok {
		s.TopologyHeal = store.NewTopologyHeal(cluster, 0)
		rdb.AddHook(s.TopologyHeal)
	}
	return s, nil
}

// Run runs the services' background loops until ctx ends, and returns when they all have:
// discovery at its one cadence, the lock watchdog (which releases its locks on the way out)
// and the limiters' history flush. Singleton work (demo, reaper) is the caller's, through
// Singletons.
func (s *Services) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { s.Discovery.Run(ctx, store.DiscoveryEvery) })
	wg.Go(func() { s.Locks.Watchdog().Run(ctx) })
	wg.Go(func() { s.Limiters.Run(ctx) })
	wg.Wait()
}

// Ping answers whether Redis is reachable.
func (s *Services) Ping(ctx context.Context) error {
	return store.OpError("redisrepo.Services.Ping", s.Client.Ping(ctx).Err())
}

// Close closes what Open opened (not a Client given in OpenOptions). Call it after Run
// returned.
func (s *Services) Close() error {
	if s.stop != nil {
		s.stop()
	}
	s.done.Wait()
	var first error
	for _, c := range s.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// keepTime makes the embedded Redis keep time as a real one does: miniredis expires keys and
// answers TIME only from the clock it is given.
func keepTime(ctx context.Context, m *miniredis.Miniredis) {
	last := time.Now()
	m.SetTime(last)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			m.SetTime(now)
			m.FastForward(now.Sub(last))
			last = now
		}
	}
}

// GoRedisLogger sends go-redis's own messages (every failed dial while Redis is down) to log's
// debug level: outages are reported once, by the watcher. go-redis has one logger for the
// whole process: cmd/web's main sets it (redis.SetLogger), once.
type GoRedisLogger struct{ Log *slog.Logger }

func (l GoRedisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.Log.DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}
