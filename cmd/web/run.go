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

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/zpulse/zpulse/internal/demo"
	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/redisrepo"
	"github.com/zpulse/zpulse/internal/redisrepo/history"
	"github.com/zpulse/zpulse/internal/redisrepo/notify"
	"github.com/zpulse/zpulse/internal/web"
	"github.com/zpulse/zpulse/static"
)

// shutdownGrace bounds a graceful shutdown: websockets are closed at once, then requests in
// flight get this long to finish.
const shutdownGrace = 8 * time.Second

// queueTakePool bounds the connections of blocking takes (BZPOPMIN): that many takes can
// wait at once; more wait for a connection (go-redis's pool timeout), never the dashboard.
const queueTakePool = 64

// reapEvery is how often the reaper returns jobs whose lease ended (MinLease is 1 s).
const reapEvery = time.Second

// seasonRolloverEvery is how often the season-rollover singleton looks for boards whose
// scheduled season ended: a scheduled season ends within this time after its boundary.
const seasonRolloverEvery = 15 * time.Second

// run is the whole program: it serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if errors.Is(err, errExit) {
		return nil // --help: the flags are printed
	}
	if err != nil {
		return err
	}
	if cfg.Version {
		_, err := io.WriteString(stdout, version())
		return err
	}
	log := newLogger(stdout, cfg)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup

	// The notifier, made below over the opened client, tells the locks topic's read whether
	// keyspace notifications brought every new lock (then it leaves out its lock step): only
	// the watcher asks, and it runs after the notifier exists.
	var notifier *notify.Notifier
	svc, err := redisrepo.Open(ctx, redisrepo.OpenOptions{URL: cfg.RedisURL, TakePool: queueTakePool, Log: log, WaitReplicas: cfg.WaitReplicas, Completed: cfg.Completed,
		AuditMaxEntries: cfg.AuditMax, AuditMaxAge: cfg.AuditMaxAge,
		Notified: func() bool { return notifier.Heard() }})
	if err != nil {
		return err
	}
	if err := svc.Ping(ctx); err != nil && !svc.Embedded {
		log.Warn("redis does not answer yet; pages show a banner until it does", "err", err)
	}
	// In this order: background loops are told to stop, end (the lock watchdog releases its
	// locks on the way out), and only then Redis closes. Deferred one by one they would run
	// the other way round, and an early return would wait forever for loops never cancelled.
	defer func() {
		cancel()
		wg.Wait()
		svc.Close()
	}()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := live.NewMetrics(reg)
	reg.MustRegister(&web.BusinessCollector{Read: svc.Business, Limit: cfg.MetricsMax, ErrorCounts: svc.CommandErrors.Counts, Health: svc.Health, Log: log})
	clock := domain.SystemClock{}
	leaderboards, locks, limiters, queues, singletons := svc.Leaderboards, svc.Locks, svc.Limiters, svc.Queues, svc.Singletons
	wg.Go(func() { svc.Run(ctx) }) // discovery, the lock watchdog, the limiters' history
	hub := live.NewHub(metrics)
	// The notifier, made below, wakes the watcher; the watcher pushes the notifier's state to
	// every page's footer (live.WithMode), read only once both exist (the watcher runs after).
	var liveMode func() string
	watcher := live.NewWatcher(svc.Snapshots.Read, web.TopicRenderer(cfg.BigKey, svc.Keys, cfg.BasePath), hub, cfg.PollInterval, log, metrics,
		live.WithMinGap(cfg.MinGap), live.WithSame(panels.Same), live.WithRouter(svc.Snapshots.Rooms()),
		live.WithMode(func() string { return liveMode() }), live.WithNotice(svc.Notice))

	if !static.Built() {
		log.Warn("static assets are not built: pages render unstyled and without live updates; run `make generate`")
	}
	var demoSwitch domain.DemoSwitch
	if cfg.demoEnabled() {
		demoSwitch = svc.Demo
		services := demo.Services{Leaderboards: leaderboards, Limiters: limiters, Locks: locks, Queues: queues, Switch: demoSwitch, Clock: clock}
		// One instance seeds and makes the demo traffic, however many share the Redis.
		wg.Go(func() {
			// The demo's writes are not fenced: a stale term's last round costs a little extra
			// demo traffic, nothing more.
			_ = singletons.Run(ctx, "demo-traffic", func(ctx context.Context, _ int64) error {
				if err := demo.Seed(ctx, services); err != nil {
					log.Warn("cannot seed demo data", "err", err)
				}
				demo.Run(ctx, services, cfg.DemoEvery, watcher.Nudge, log)
				return nil
			})
		})
	}
	// Another service's write wakes the watcher at once; polling stays the floor. Until the
	// watcher wakes only the topics of the keys changed, a change wakes them all (coalesced
	// by --live-min-gap to one tick per gap).
	notifier = notify.New(svc.Client, notify.Options{
		Mode: notify.Mode(cfg.Notifications), Keys: redisrepo.DefaultKeys, Discovery: svc.Discovery, Embedded: svc.Embedded, Log: log,
		OnChange: watcher.Changed, OnResubscribed: watcher.Nudge,
	})
	wg.Go(func() { notifier.Run(ctx) })
	liveMode = func() string { return describeLiveMode(notifier.State(), cfg.PollInterval) }
	wg.Go(func() { watcher.Run(ctx) })
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "zpulse_live_notifications", Help: "1 while live pages wake on Redis keyspace notifications, 0 while they only poll (--live-notifications)",
	}, func() float64 {
		if notifier.State().On {
			return 1
		}
		return 0
	}))
	// One instance records the history every instance's charts read.
	wg.Go(func() {
		_ = singletons.Run(ctx, history.RecorderLoop, func(ctx context.Context, _ int64) error {
			return svc.History.RunRecorder(ctx, watcher.Nudge)
		})
	})
	// One instance ends the seasons of boards with a schedule (season_every) at each boundary.
	wg.Go(func() {
		_ = singletons.Run(ctx, "season-rollover", func(ctx context.Context, _ int64) error {
			return leaderboards.RunSeasonRollover(ctx, seasonRolloverEvery, func(ended int) {
				log.Info("ended scheduled seasons", "boards", ended)
				watcher.Nudge()
			}, func(err error) { log.Warn("cannot roll seasons over; trying again", "err", err) })
		})
	})
	wg.Go(func() {
		_ = singletons.Run(ctx, "queue-reaper", func(ctx context.Context, fence int64) error {
			return queues.RunReaper(ctx, reapEvery, fence, func(returned, died int64) {
				log.Info("reaped expired leases", "returned", returned, "dead", died)
				watcher.Nudge()
			})
		})
	})

	handler := web.NewServer(web.Deps{
		Leaderboards: leaderboards, Queues: queues, Locks: locks, History: svc.History, Hub: hub, Watcher: watcher, Registry: reg, Log: log,
		AdminToken: cfg.AdminToken, ShowToAnonymous: cfg.ShowAnon, Embedded: svc.Embedded, Keys: svc.Keys, BigKey: cfg.BigKey, Ping: svc.Ping, Health: svc.Health,
		Limiters: limiters, FlushLimiterChecks: limiters.Flush, APIRateLimit: cfg.APIRateLimit, Demo: demoSwitch,
		Auth: svc.Auth, Trail: svc.Audit, TrustProxy: cfg.TrustProxy, TrustedProxies: cfg.TrustedProxies, OpenAccess: cfg.OpenAccess, WS: cfg.WS, BasePath: cfg.BasePath, AccessLog: cfg.AccessLog,
		Sources: svc.Sources, LiveMode: liveMode,
	})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	srv := web.NewHTTPServer(handler, slog.NewLogLogger(log.Handler(), slog.LevelWarn))
	access := "admin token required for changes"
	switch {
	case cfg.AdminToken != "":
	case cfg.OpenAccess:
		access = "open: anyone who reaches this server can change data (--open-access)"
		log.Warn("no admin token and --open-access: anyone who reaches this server can change data")
	default:
		access = "open to loopback only: changes are accepted from this machine, other addresses may only read"
		log.Warn("no admin token: changes are accepted only from loopback (this machine); set --admin-token, or --open-access to accept them from anywhere")
	}
	log.Info("zpulse is serving", "url", "http://"+displayAddr(ln.Addr())+cfg.BasePath+"/", "access", access,
		"poll_interval", cfg.PollInterval.String(), "demo", cfg.demoEnabled())

	if cfg.TrustProxy {
		log.Info("trusting X-Forwarded-For/-Proto/-Host from the trusted proxies (--trust-proxy)", "trusted_proxies", cfg.Proxies)
	}
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

// describeLiveMode is the live mode as the footer and /readyz say it.
func describeLiveMode(s notify.State, poll time.Duration) string {
	if s.On {
		return "live: notifications"
	}
	return "live: polling every " + domain.FormatDuration(poll) + " (" + s.Why + ")"
}

// newLogger writes log lines to out as text or JSON, from the configured level on.
func newLogger(out io.Writer, cfg config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(out, opts))
	}
	return slog.New(slog.NewTextHandler(out, opts))
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
