// Package api is zpulse's JSON API under /api/v1: one handler a call, registered by
// internal/web's routes.go behind its middleware (JSON only, the API's rate limit, the
// bearer token, admin checks and the watcher's nudge on changes). A handler reads its
// request with httpio's decoder and binder, asks one domain service and answers JSON; its
// errors go back to internal/web's error handler, which answers them with httpio's error
// envelope. The API is described by internal/web/openapi.json. It imports domain, httpio
// and echo, never internal/web.
package api

import (
	"log/slog"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// Handlers are the API's handlers, over the domain services they call.
type Handlers struct {
	Leaderboards domain.LeaderboardService
	Queues       domain.QueueService
	Limiters     domain.LimiterService
	Locks        domain.LockService
	Sources      domain.SourceService
	Schedules    domain.ScheduleService
	Trail        domain.AuditLog   // the audit trail, read by admins
	Tokens       domain.TokenStore // nil: personal tokens are off (no --admin-token)
	Log          *slog.Logger
	// Audience is what the request's reader may see of secrets (domain.Audience): every
	// handler that shows a lock, a job, a consumer or a source passes it through this.
	Audience func(echo.Context) domain.Audience
	// Payloads says whether the request's reader sees job payloads, and so may search them.
	Payloads func(echo.Context) bool
}
