package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/demo"
	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/web"
	"github.com/zpulse/zpulse/static"
)

// shutdownGrace bounds a graceful shutdown: websockets are closed at once, then requests in
// flight get this long to finish.
const shutdownGrace = 8 * time.Second

// discoveryEvery is the slow cadence at which boards written by other services are looked
// for with SCAN.
const discoveryEvery = 10 * time.Second

// queueTakePool bounds the connections of blocking takes (BZPOPMIN): that many takes can
// wait at once; more wait for a connection (go-redis's pool timeout), never the dashboard.
const queueTakePool = 64

// reapEvery is how often the reaper returns jobs whose lease ended (MinLease is 1 s).
const reapEvery = time.Second

// run is the whole program: it serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stdout, nil))
	redis.SetLogger(redisLogger{log}) // go-redis would log every failed dial while Redis is down
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup

	rdb, closeRedis, err := openRedis(ctx, cfg, log, &wg)
	if err != nil {
		return err
	}
	// In this order: background loops are told to stop, end (the lock watchdog releases its
	// locks on the way out), and only then Redis closes. Deferred one by one they would run
	// the other way round, and an early return would wait forever for loops never cancelled.
	defer func() {
		cancel()
		wg.Wait()
		closeRedis()
	}()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := live.NewMetrics(reg)
	keys, clock := redisrepo.DefaultKeys, domain.SystemClock{}
	catalog := redisrepo.NewCatalog(rdb, keys)
	leaderboards := redisrepo.NewLeaderboards(rdb, keys, clock, catalog)
	locks := redisrepo.NewLocks(rdb, keys)
	wg.Go(func() { locks.Watchdog().Run(ctx) })
	singletons := redisrepo.NewSingletons(locks, log)
	limiters := redisrepo.NewLimiters(rdb, keys, nil) // the time from Redis TIME
	wg.Go(func() { limiters.Run(ctx) })
	if cfg.AdminToken != "" {
		if _, err := limiters.SetPolicy(ctx, web.LoginPolicy); err != nil {
			log.Warn("cannot save the sign-in limit; sign-in is not limited until it is saved", "err", err)
		}
	}
	hub := live.NewHub(metrics)
	snapshots := redisrepo.NewSnapshots(rdb, keys, clock, catalog)
	// Queues: blocking takes on a pool of their own; one instance reaps expired leases.
	queueCatalog := redisrepo.NewQueueCatalog(rdb, keys)
	blocking := redisrepo.NewBlockingClient(rdb, queueTakePool)
	defer blocking.Close()
	queues := redisrepo.NewQueues(rdb, blocking, keys, queueCatalog)
	snapshots.WithQueues(queueCatalog)
	watcher := live.NewWatcher(snapshots.Read, web.TopicRenderer(cfg.BigKey), hub, cfg.PollInterval, log, metrics)

	if !static.Built() {
		log.Warn("static assets are not built: pages render unstyled and without live updates; run `make generate`")
	}
	var demoSwitch domain.DemoSwitch
	if cfg.demoEnabled() {
		demoSwitch = redisrepo.NewDemoSwitch(rdb, keys)
		services := demo.Services{Leaderboards: leaderboards, Limiters: limiters, Locks: locks, Queues: queues, Switch: demoSwitch}
		// One instance seeds and makes the demo traffic, however many share the Redis.
		wg.Go(func() {
			_ = singletons.Run(ctx, "demo-traffic", func(ctx context.Context) error {
				if err := demo.Seed(ctx, services); err != nil {
					log.Warn("cannot seed demo data", "err", err)
				}
				demo.Run(ctx, services, cfg.DemoEvery, watcher.Nudge, log)
				return nil
			})
		})
	}
	wg.Go(func() { watcher.Run(ctx) })
	wg.Go(func() { catalog.Run(ctx, discoveryEvery) })
	wg.Go(func() { queueCatalog.Run(ctx, discoveryEvery) })
	wg.Go(func() {
		_ = singletons.Run(ctx, "queue-reaper", func(ctx context.Context) error {
			return queues.RunReaper(ctx, reapEvery, func(returned, died int64) {
				log.Info("reaped expired leases", "returned", returned, "dead", died)
				watcher.Nudge()
			})
		})
	})

	handler := web.NewServer(web.Deps{
		Leaderboards: leaderboards, Queues: queues, Locks: locks, Hub: hub, Watcher: watcher, Registry: reg, Log: log,
		PageReads: web.SnapshotPageReads{Read: snapshots.Read, Leaderboards: leaderboards, Queues: queues},
		Clock:     clock, AdminToken: cfg.AdminToken, Embedded: cfg.RedisURL == "", BigKey: cfg.BigKey,
		Ping:     func(ctx context.Context) error { return rdb.Ping(ctx).Err() },
		Limiters: limiters, FlushLimiterChecks: limiters.Flush, APIRateLimit: cfg.APIRateLimit, Demo: demoSwitch,
	})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	access := "open: anyone who reaches this server can change data"
	if cfg.AdminToken != "" {
		access = "admin token required for changes"
	}
	log.Info("zpulse is serving", "url", "http://"+displayAddr(ln.Addr()), "access", access,
		"poll_interval", cfg.PollInterval, "demo", cfg.demoEnabled())

	if cfg.APIRateLimit != "" {
		log.Info("the JSON API is rate limited per client (API token or IP)", "policy", cfg.APIRateLimit)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: closing live connections, draining requests")
	hub.Close()
	shutdownCtx, stop := context.WithTimeout(context.Background(), shutdownGrace)
	defer stop()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// openRedis connects to REDIS_URL, or starts the embedded in-memory Redis when none is given.
func openRedis(ctx context.Context, cfg config, log *slog.Logger, wg *sync.WaitGroup) (redis.UniversalClient, func(), error) {
	if cfg.RedisURL != "" {
		rdb, err := redisrepo.Connect(cfg.RedisURL)
		if err != nil {
			return nil, nil, err
		}
		if err := rdb.Ping(ctx).Err(); err != nil {
			log.Warn("redis does not answer yet; pages show a banner until it does", "err", err)
		}
		return rdb, func() { rdb.Close() }, nil
	}
	m := miniredis.NewMiniRedis()
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, nil, fmt.Errorf("start the embedded redis: %w", err)
	}
	wg.Go(func() { keepTime(ctx, m) })
	log.Warn("no REDIS_URL: using an embedded in-memory Redis; data lives in memory and is lost when zpulse stops", "addr", m.Addr())
	rdb, err := redisrepo.Connect("redis://" + m.Addr())
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return rdb, func() { rdb.Close(); m.Close() }, nil
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

// displayAddr turns a listen address into one a browser can open (":8080" -> "localhost:8080").
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// redisLogger sends go-redis's own messages to the debug level: outages are reported once,
// by the watcher, rather than at every failed dial.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}
