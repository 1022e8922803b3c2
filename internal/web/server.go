package web

import (
	"context"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/web/api"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// Deps are what the HTTP layer needs: domain services and the live machinery. cmd/web's run
// builds them; tests build them with the same services.
type Deps struct {
	Leaderboards domain.LeaderboardService
	Queues       domain.QueueService
	Limiters     domain.LimiterService
	// FlushLimiterChecks writes the limiter checks recorded since the last periodic flush, so
	// the try form's checks show at once; nil leaves them to the next flush.
	FlushLimiterChecks func(context.Context) error
	Locks              domain.LockService
	Sources            domain.SourceService  // adopted key layouts of other services
	History            domain.HistoryService // the charts' reads; nil shows no chart
	Demo               domain.DemoSwitch     // nil when the demo does not run
	Hub                *live.Hub
	Watcher            Watcher
	Ping               func(context.Context) error // answers whether Redis is reachable
	// Health reads every master now, for /readyz and the zpulse_redis_masters_down gauge
	// (redisrepo.Services.Health); nil: /readyz PINGs through Ping.
	Health   func(context.Context) domain.RedisHealth
	Registry *prometheus.Registry
	Log      *slog.Logger
	// Auth keeps sessions and the sign-in attempt counters (redisrepo.Services.Auth).
	Auth domain.AuthStore
	// Tokens keeps personal API tokens (redisrepo.Services.Auth); nil: none. They are taken
	// only while an admin token is configured (without one, access is open).
	Tokens     domain.TokenStore
	AdminToken string
	// Trail keeps the audit trail of change requests (redisrepo.Services.Audit); nil records none.
	Trail domain.AuditLog
	// OpenAccess accepts changes from every address when AdminToken is empty; without it they
	// are accepted from loopback clients only (fromLoopback).
	OpenAccess   bool
	Embedded     bool              // data lives in an in-memory Redis
	Keys         domain.KeyDisplay // Redis key names as pages show them
	BigKey       int64             // members above which a board page warns of a big key
	APIRateLimit string            // limiter policy protecting the JSON API; "" is off
	// TrustProxy honours X-Forwarded-For, -Proto and -Host from the TrustedProxies (see
	// proxy.go): set it only when zpulse is reached through a proxy that sets them.
	TrustProxy bool
	// ShowToAnonymous are the secrets readers who are not admins see while an admin token is
	// configured (--show-to-anonymous): payloads, client ids or both; lock tokens never.
	ShowToAnonymous domain.Secrets
	// SessionRecheck is how often a signed-in admin's live connection checks its session is
	// still there (0: every 10 s); tests make it short.
	SessionRecheck time.Duration
	// AuthProxy is sign-in by an authenticating proxy (authproxy.go); zero: off.
	AuthProxy AuthProxy
	// OIDC is sign-in with OpenID Connect (oidc.go, NewOIDC); nil: off.
	OIDC *OIDC
	// Schedules keeps recurring schedules (redisrepo.Services.Schedules); nil shows none.
	Schedules domain.ScheduleService
	// TrustedProxies are the proxies' address ranges (nil: DefaultTrustedProxies, loopback).
	TrustedProxies []*net.IPNet
	// WS bounds the websocket viewers (zero fields: DefaultWSLimits).
	WS WSLimits
	// BasePath is the path prefix zpulse is served under behind a proxy ("/zpulse"; "" is the
	// root): every page, asset, form, redirect and websocket URL carries it.
	BasePath string
	// AccessLog says which requests are logged: AccessLogAll (also ""), AccessLogErrors
	// (status 400 and above) or AccessLogOff. Static files and probes log at DEBUG.
	AccessLog string
	// LiveMode says how live pages learn of changes ("live: notifications", "live: polling
	// every 250 ms" and why), for the footer and /readyz; nil says nothing.
	LiveMode func() domain.LiveMode
	// IndexNotes are notes about zpulse's own index keys holding another type (read as empty:
	// redisrepo.IndexNotes), shown at the top of every page; nil shows none.
	IndexNotes func() []string
}

// Watcher is what the HTTP layer asks of the live watcher (*live.Watcher): what it knows of
// Redis, for the banner, and a tick right after a change.
type Watcher interface {
	Status() live.Status
	Nudge()
}

// server holds the handlers' shared state; its methods are the handlers of routes.go.
type server struct {
	Deps
	tokenFingerprint string          // of AdminToken: sessions opened with another token are not sessions
	anonymous        domain.Audience // what readers who are not admins see
	proxies          []*net.IPNet    // TrustedProxies, or the default
	admission        *wsAdmission
	audit            *auditTrail
}

// NewServer returns zpulse's HTTP handler: middleware, then the routes of routes.go. With an
// admin token, d.Auth is required.
func NewServer(d Deps) *echo.Echo {
	if (d.AdminToken != "" || d.AuthProxy.Header != "" || d.OIDC != nil) && d.Auth == nil {
		panic("web.NewServer: an admin token needs Deps.Auth (redisrepo.Services.Auth) for its sessions and attempt limit")
	}
	s := &server{Deps: d, tokenFingerprint: fingerprint(d.AdminToken), anonymous: domain.Anonymous(d.ShowToAnonymous, d.AdminToken),
		admission: newWSAdmission(d.WS), proxies: d.TrustedProxies, audit: newAuditTrail(d)}
	if s.proxies == nil {
		s.proxies, _ = ParseTrustedProxies(DefaultTrustedProxies)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = ipExtractor(d.TrustProxy, s.proxies)
	e.HTTPErrorHandler = s.handleError
	e.Pre(stripBasePath(d.BasePath))
	if d.Registry != nil {
		e.Use(httpMetrics(d.Registry))
	}
	e.Use(
		middleware.RequestID(),
		accessLog(d.Log, d.AccessLog),
		middleware.Recover(),
		middleware.BodyLimit(httpio.MaxBodyBytes),
		middleware.SecureWithConfig(middleware.SecureConfig{
			XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
			HSTSMaxAge: 31536000, ContentSecurityPolicy: contentSecurityPolicy, ReferrerPolicy: "same-origin",
		}),
		compress(),
	)
	s.routes(e)
	return e
}

// apiHandlers are the JSON API's handlers (internal/web/api), over this server's services,
// with the reader's audience and admin status as authenticate found them.
func (s *server) apiHandlers() *api.Handlers {
	return &api.Handlers{Tokens: s.tokens(), Leaderboards: s.Leaderboards, Queues: s.Queues, Limiters: s.Limiters, Locks: s.Locks, Sources: s.Sources, Schedules: s.Schedules, Trail: s.Trail,
		Log: s.Log, Audience: s.audience, Payloads: func(c echo.Context) bool { return s.audience(c).Sees(domain.JobPayloads) }}
}

// The HTTP server's timeouts. Reads and writes are bounded so a slow or stalled client cannot
// hold a connection and its goroutine for ever; the write timeout leaves room for the
// longest call (a blocking take or a lock acquire waits up to 30 s). /ws lifts the read and
// write deadlines for its connection (serveWS): a live view lasts hours.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = max(domain.MaxTakeWait, domain.MaxLockWait) + 30*time.Second
	idleTimeout       = 2 * time.Minute
)

// NewHTTPServer is the http.Server for zpulse's handler, with its timeouts.
func NewHTTPServer(h http.Handler, errorLog *log.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, ErrorLog: errorLog}
}

// tokens is the personal tokens' store while they are taken: while access is protected
// (an admin token or an authenticating proxy).
func (s *server) tokens() domain.TokenStore {
	if !s.protected() {
		return nil
	}
	return s.Tokens
}
