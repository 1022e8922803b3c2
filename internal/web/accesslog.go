package web

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// The values of Deps.AccessLog (and of the --access-log flag).
const (
	AccessLogAll    = "all"
	AccessLogErrors = "errors"
	AccessLogOff    = "off"
)

// AccessLogModes lists the values Deps.AccessLog takes, for the flag's check and help.
var AccessLogModes = []string{AccessLogAll, AccessLogErrors, AccessLogOff}

// accessLog logs each request once it is answered. Static files and probes (/healthz,
// /readyz, /metrics) log at DEBUG whatever their status: a load balancer polling a failing
// /readyz is the probe doing its job, not an error of zpulse. Other requests log at INFO,
// at ERROR from status 500 on; mode errors keeps only statuses from 400 on. The time taken
// is latency_ms, in milliseconds with microsecond precision.
func accessLog(log *slog.Logger, mode string) echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		Skipper:   func(echo.Context) bool { return mode == AccessLogOff },
		LogStatus: true, LogURI: true, LogMethod: true, LogLatency: true, LogRequestID: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			if mode == AccessLogErrors && v.Status < http.StatusBadRequest {
				return nil
			}
			level := slog.LevelInfo
			switch {
			case isQuiet(c.Path()):
				level = slog.LevelDebug
			case v.Status >= http.StatusInternalServerError:
				level = slog.LevelError
			}
			log.LogAttrs(c.Request().Context(), level, "request", slog.String("method", v.Method), slog.String("uri", redactURI(v.URI)),
				slog.Int("status", v.Status), slog.Float64("latency_ms", float64(v.Latency.Microseconds())/1000), slog.String("request_id", v.RequestID))
			return nil
		},
	})
}

// redactURI is a request's URI as the log shows it: a query value that may be a credential
// (its name says token, secret, password or key, or it looks like a personal token) is
// replaced. zpulse never takes a token from the address, but a client may still put one there.
func redactURI(uri string) string {
	path, query, ok := strings.Cut(uri, "?")
	if !ok {
		return uri
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return path + "?(unreadable query withheld)"
	}
	changed := false
	for name, vs := range values {
		lower := strings.ToLower(name)
		secret := strings.Contains(lower, "token") || strings.Contains(lower, "secret") || strings.Contains(lower, "password") || strings.Contains(lower, "key")
		for i, v := range vs {
			if secret || strings.HasPrefix(v, "zpt_") {
				vs[i], changed = "REDACTED", true
			}
		}
	}
	if !changed {
		return uri
	}
	return path + "?" + values.Encode()
}

// isQuiet says whether a route's requests are routine enough to log at DEBUG only.
func isQuiet(route string) bool {
	switch route {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return strings.HasPrefix(route, "/static/")
}
