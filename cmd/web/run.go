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

// scheduleEvery is how often the schedules' singleton looks for a period that started: a
// schedule's job is enqueued within this time after its period's start.
const scheduleEvery = time.Second

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

	svc, err := redisrepo.Open(ctx, redisrepo.OpenOptions{URL: cfg.RedisURL, TakePool: queueTakePool, Log: log, WaitReplicas: cfg.WaitReplicas, Completed: cfg.Completed, ScoreHistory: scoreHistoryOption(cfg.ScoreHistory),
		AuditMaxEntries: cfg.AuditMax, AuditMaxAge: cfg.AuditMaxAge,
		Notifications: notify.Mode(cfg.Notifications)})
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

	reg := newRegistry(svc, cfg, log)
	metrics := live.NewMetrics(reg)
	hub := live.NewHub(metrics)
	liveMode := func() domain.LiveMode { return describeLiveMode(svc.Notifier.State(), cfg.PollInterval) }
	watcher := live.NewWatcher(svc.Snapshots.Read, web.TopicRenderer(cfg.BigKey, svc.Keys, cfg.BasePath), hub, cfg.PollInterval, log, metrics,
		live.WithMinGap(cfg.MinGap), live.WithSame(panels.Same), live.WithRouter(svc.Snapshots.Rooms()), live.WithMode(liveMode), live.WithNotice(svc.Notice))
	if !static.Built() {
		log.Warn("static assets are not built: pages render unstyled and without live updates; run `make generate`")
	}
	wg.Go(func() { svc.Run(ctx) }) // discovery, the lock watchdog, the limiters' history
	// Another service's write wakes the watcher at once (the topics of the keys changed);
	// polling stays the floor.
	wg.Go(func() {
		svc.Notifier.Run(ctx, notify.Handlers{OnChange: watcher.Changed, OnResubscribed: watcher.Nudge})
	})
	wg.Go(func() { watcher.Run(ctx) })
	demoSwitch := runSingletons(ctx, &wg, cfg, svc, watcher.Nudge, reg, log)

	handler := web.NewServer(web.Deps{OIDC: startOIDC(ctx, cfg, log),
		Leaderboards: svc.Leaderboards, Queues: svc.Queues, Locks: svc.Locks, History: svc.History, Hub: hub, Watcher: watcher, Registry: reg, Log: log,
		AdminToken: cfg.AdminToken, ShowToAnonymous: cfg.ShowAnon, Embedded: svc.Embedded, Keys: svc.Keys, BigKey: cfg.BigKey, Ping: svc.Ping, Health: svc.Health,
		Limiters: svc.Limiters, FlushLimiterChecks: svc.Limiters.Flush, APIRateLimit: cfg.APIRateLimit, Demo: demoSwitch,
		Auth: svc.Auth, Tokens: svc.Auth, AuthProxy: cfg.AuthProxy, Trail: svc.Audit, TrustProxy: cfg.TrustProxy, TrustedProxies: cfg.TrustedProxies, OpenAccess: cfg.OpenAccess, WS: cfg.WS, BasePath: cfg.BasePath, AccessLog: cfg.AccessLog,
		Sources: svc.Sources, LiveMode: liveMode, IndexNotes: svc.IndexNotes,
		Schedules: svc.Schedules,
	})
	return serve(ctx, cfg, handler, hub, log)
}

// newRegistry is /metrics' registry: the Go runtime's and the process's collectors, the
// business figures read from Redis, and whether live pages wake on keyspace notifications.
func newRegistry(svc *redisrepo.Services, cfg config, log *slog.Logger) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(&web.BusinessCollector{Read: svc.Business, Limit: cfg.MetricsMax, ErrorCounts: svc.CommandErrors.Counts, Health: svc.Health, Log: log})
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "zpulse_live_notifications", Help: "1 while live pages wake on Redis keyspace notifications, 0 while they only poll (--live-notifications)",
	}, func() float64 {
		if svc.Notifier.State().On {
			return 1
		}
		return 0
	}))
	return reg
}

// rolloverActor is who ends scheduled seasons: zpulse itself.
var rolloverActor = domain.Actor{Name: "zpulse", Role: domain.RoleAdmin, Via: domain.ViaSystem}

// runSingletons starts the loops that run in one instance at a time however many share the
// Redis (the demo's seed and traffic when the demo is on, the history recorder, the season
// rollover, the recurring schedules, the queue reaper), each under wg until ctx ends; nudge wakes the watcher after
// their changes; reg takes their counters. It returns the demo's switch, nil with the demo off.
func runSingletons(ctx context.Context, wg *sync.WaitGroup, cfg config, svc *redisrepo.Services, nudge func(), reg prometheus.Registerer, log *slog.Logger) domain.DemoSwitch {
	singletons := svc.Singletons
	var demoSwitch domain.DemoSwitch
	if cfg.demoEnabled() {
		demoSwitch = svc.Demo
		services := demo.Services{Leaderboards: svc.Leaderboards, Limiters: svc.Limiters, Locks: svc.Locks, Queues: svc.Queues, Sources: svc.Sources, Switch: demoSwitch, Clock: domain.SystemClock{},
			Schedules: svc.Schedules}
		wg.Go(func() {
			// The demo's writes are not fenced: a stale term's last round costs a little extra
			// demo traffic, nothing more.
			_ = singletons.Run(ctx, "demo-traffic", func(ctx context.Context, _ int64) error {
				if err := demo.Seed(ctx, services); err != nil {
					log.Warn("cannot seed demo data", "err", err)
				}
				demo.Run(ctx, services, cfg.DemoEvery, nudge, log)
				return nil
			})
		})
	}
	// One instance records the history every instance's charts read.
	wg.Go(func() {
		_ = singletons.Run(ctx, history.RecorderLoop, func(ctx context.Context, _ int64) error {
			return svc.History.RunRecorder(ctx, nudge)
		})
	})
	// One instance ends the seasons of boards with a schedule (season_every) at each boundary;
	// one board's failure is logged and counted, and the other boards roll all the same.
	rolloverFailures := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "zpulse_season_rollover_failures_total",
		Help: "Scheduled season ends that failed, one per board and round (a board's page and the overview say why), and rounds that failed as a whole, counted by the instance that ran the season rollover.",
	})
	reg.MustRegister(rolloverFailures)
	wg.Go(func() {
		_ = singletons.Run(ctx, "season-rollover", func(ctx context.Context, _ int64) error {
			ctx = domain.WithActor(ctx, rolloverActor) // what a player's score history names
			return svc.Leaderboards.RunSeasonRollover(ctx, seasonRolloverEvery, func(ended int) {
				log.Info("ended scheduled seasons", "boards", ended)
				nudge()
			}, func(board string, err error) {
				rolloverFailures.Inc()
				if board == "" {
					log.Warn("cannot roll seasons over; trying again", "err", err)
				} else {
					log.Warn("cannot roll a board's season over; the other boards rolled, trying again", "board", board, "err", err)
				}
			})
		})
	})
	// One instance runs the recurring schedules: each period's job is enqueued once, in one
	// script with the schedule's advance (a compare-and-set), whoever runs them.
	wg.Go(func() {
		_ = singletons.Run(ctx, "schedules", func(ctx context.Context, _ int64) error {
			return svc.Schedules.Run(ctx, scheduleEvery, func(runs []domain.ScheduleRun) {
				for _, r := range runs {
					log.Info("ran a schedule", "schedule", r.Schedule, "queue", r.Queue, "job", r.JobID, "enqueued", r.Enqueued)
				}
				nudge()
			}, func(err error) { log.Warn("cannot run a schedule; trying again", "err", err) })
		})
	})
	wg.Go(func() {
		_ = singletons.Run(ctx, "queue-reaper", func(ctx context.Context, fence int64) error {
			return svc.Queues.RunReaper(ctx, reapEvery, fence, func(returned, died int64) {
				log.Info("reaped expired leases", "returned", returned, "dead", died)
				nudge()
			})
		})
	})
	return demoSwitch
}

// serve listens on cfg.Addr and serves handler until ctx ends, then closes the live
// connections (hub) and drains the requests in flight for up to shutdownGrace.
func serve(ctx context.Context, cfg config, handler http.Handler, hub *live.Hub, log *slog.Logger) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	srv := web.NewHTTPServer(handler, slog.NewLogLogger(log.Handler(), slog.LevelWarn))
	log.Info("zpulse is serving", "url", "http://"+displayAddr(ln.Addr())+cfg.BasePath+"/", "access", describeAccess(cfg, log),
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

// startOIDC is the single sign-on of --oidc-issuer (nil: off), its provider discovered now if
// it answers; an unreachable provider does not stop zpulse: the first sign-in tries again.
func startOIDC(ctx context.Context, cfg config, log *slog.Logger) *web.OIDC {
	if cfg.OIDC.Issuer == "" {
		return nil
	}
	o := web.NewOIDC(cfg.OIDC, log)
	if err := o.Discover(ctx); err != nil {
		log.Warn("oidc: the provider cannot be reached at start; the first sign-in with single sign-on tries again", "issuer", cfg.OIDC.Issuer, "err", err)
	}
	return o
}

// describeAccess says who may change data, warning when it is more than an admin, for the
// start-up line.
func describeAccess(cfg config, log *slog.Logger) string {
	switch {
	case cfg.AuthProxy.Header != "":
		return "signed in by the authenticating proxy's " + cfg.AuthProxy.Header + " header from " + cfg.Proxies
	case cfg.OIDC.Issuer != "":
		return "single sign-on with " + cfg.OIDC.Issuer + " (and tokens) required for changes"
	case cfg.AdminToken != "":
		return "admin token required for changes"
	case cfg.OpenAccess:
		log.Warn("no admin token and --open-access: anyone who reaches this server can change data")
		return "open: anyone who reaches this server can change data (--open-access)"
	default:
		log.Warn("no admin token: changes are accepted only from loopback (this machine); set --admin-token, or --open-access to accept them from anywhere")
		return "open to loopback only: changes are accepted from this machine, other addresses may only read"
	}
}

// describeLiveMode is the live mode as the footer and /readyz say it: the reason polling goes
// on names Redis settings, so it is the detail, behind the footer's toggle.
func describeLiveMode(s notify.State, poll time.Duration) domain.LiveMode {
	if s.On {
		return domain.LiveMode{Summary: "live: notifications"}
	}
	return domain.LiveMode{Summary: "live: polling every " + domain.FormatDuration(poll), Detail: s.Why}
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

// scoreHistoryOption is --score-history as redisrepo.OpenOptions takes it: 0 (none) is -1.
func scoreHistoryOption(events int64) int64 {
	if events == 0 {
		return -1
	}
	return events
}
