package web

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
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
	Sources            domain.SourceService // adopted key layouts of other services
	Demo               domain.DemoSwitch    // nil when the demo does not run
	Hub                *live.Hub
	Watcher            Watcher
	Ping               func(context.Context) error // answers whether Redis is reachable
	Registry           *prometheus.Registry
	Log                *slog.Logger
	Clock              domain.Clock
	AdminToken         string
	Embedded           bool              // data lives in an in-memory Redis
	Keys               domain.KeyDisplay // Redis key names as pages show them
	BigKey             int64             // members above which a board page warns of a big key
	APIRateLimit       string            // limiter policy protecting the JSON API; "" is off
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
	sessions sessions
}

// NewServer returns zpulse's HTTP handler: middleware, then the routes of routes.go.
func NewServer(d Deps) *echo.Echo {
	s := &server{Deps: d, sessions: sessions{token: d.AdminToken, clock: d.Clock}}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(
		middleware.RequestID(),
		middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
			LogStatus: true, LogURI: true, LogMethod: true, LogLatency: true, LogRequestID: true, LogError: true,
			HandleError: true,
			LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
				level := slog.LevelInfo
				if v.Status >= http.StatusInternalServerError {
					level = slog.LevelError
				}
				d.Log.LogAttrs(c.Request().Context(), level, "request", slog.String("method", v.Method), slog.String("uri", v.URI),
					slog.Int("status", v.Status), slog.Duration("latency", v.Latency), slog.String("request_id", v.RequestID))
				return nil
			},
		}),
		middleware.Recover(),
		middleware.BodyLimit(maxBodyBytes),
		middleware.SecureWithConfig(middleware.SecureConfig{
			XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
			HSTSMaxAge: 31536000, ContentSecurityPolicy: contentSecurityPolicy, ReferrerPolicy: "same-origin",
		}),
	)
	s.routes(e)
	return e
}
