package web

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zpulse/zpulse/static"
)

// routes is zpulse's whole HTTP surface.
func (s *server) routes(e *echo.Echo) {
	// Operations and assets.
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{})))
	e.GET("/ws", s.serveWS)
	e.StaticFS("/static", static.FS)

	// Pages, live over /ws. Forms carry a CSRF token; changes need an admin session when an
	// admin token is configured, and wake the watcher when they succeed.
	pages := e.Group("", refuseCSRFInQuery, csrf(), s.authenticate(true))
	change := []echo.MiddlewareFunc{s.requireAdminPage, s.nudgeAfterChange}
	pages.GET("/", s.overviewPage)
	pages.POST("/demo", s.demoSwitch, change...)
	pages.GET("/boards", s.boardsPage)
	pages.GET("/boards/:board", s.boardPage)
	pages.GET("/boards/:board/entries", s.entriesPage)
	pages.POST("/boards/:board/points", s.boardForm("add", []string{"player", "points"}, s.addPointsAction), change...)
	pages.POST("/boards/:board/score", s.boardForm("score", []string{"player", "points"}, s.setScoreAction), change...)
	pages.POST("/boards/:board/remove", s.boardForm("remove", []string{"player", "confirm"}, s.removeAction), change...)
	pages.POST("/boards/:board/trim", s.boardForm("trim", []string{"keep", "confirm"}, s.trimAction), change...)
	pages.POST("/boards/:board/reset", s.boardForm("reset", []string{"confirm"}, s.resetAction), change...)
	pages.POST("/boards/:board/settings", s.boardForm("settings", []string{"tie_break", "periods", "retention_days"}, s.settingsAction), change...)
	pages.GET("/locks", s.locksPage)
	pages.POST("/locks/acquire", s.acquireLockForm, change...)
	pages.POST("/locks/release", s.releaseLockForm, change...)
	pages.GET("/locks/:lock/force-release", s.forceReleasePage)
	pages.POST("/locks/:lock/force-release", s.forceReleaseForm, change...)
	pages.GET("/limiters", s.limitersPage)
	pages.GET("/limiters/:limiter", s.limiterPage)
	pages.POST("/limiters/:limiter/policy", s.limiterPolicyForm, change...)
	pages.POST("/limiters/:limiter/try", s.limiterTryForm, change...)
	pages.GET("/queues", s.queuesPage)
	pages.GET("/queues/:queue", s.queuePage)
	pages.POST("/queues/:queue/enqueue", s.queueForm("enqueue", []string{"id", "priority", "delay", "run_at", "payload"}, s.enqueueAction), change...)
	pages.POST("/queues/:queue/settings", s.queueForm("settings", []string{"kind", "max_attempts"}, s.queueSettingsAction), change...)
	pages.POST("/queues/:queue/jobs/:id/requeue", s.jobButton(s.requeueJob), change...)
	pages.POST("/queues/:queue/jobs/:id/delete", s.jobButton(s.deleteJob), change...)
	pages.GET("/sources", s.sourcesPage)
	pages.POST("/sources", s.saveSourceForm, change...)
	pages.GET("/sources/:source", s.sourcePage)
	pages.POST("/sources/:source/delete", s.deleteSourceForm, change...)
	pages.POST("/sources/:source/try", s.trySourceForm, change...)
	pages.GET("/login", s.loginPage)
	pages.POST("/login", s.login)
	pages.POST("/logout", s.logout)
	pages.POST("/logout/everywhere", s.logoutEverywhere, s.requireAdminPage)

	// JSON API. Changes need "Authorization: Bearer <admin token>" when one is configured,
	// and wake the watcher when they succeed. A bearer token is checked wherever it is sent.
	api := e.Group("/api/v1", requireJSON, s.rateLimitAPI(), s.authenticate(false))
	write := []echo.MiddlewareFunc{s.requireAdminAPI, s.nudgeAfterChange}
	api.GET("/boards", s.apiBoards)
	api.GET("/boards/:board", s.apiSettings)
	api.PUT("/boards/:board", s.apiPutSettings, write...)
	api.DELETE("/boards/:board", s.apiReset, write...)
	api.POST("/boards/:board/scores", s.apiAddPoints, write...)
	api.POST("/boards/:board/trim", s.apiTrim, write...)
	api.GET("/boards/:board/top", s.apiTop)
	api.GET("/boards/:board/entries", s.apiEntries)
	api.GET("/boards/:board/players/:player", s.apiPlayer)
	api.PUT("/boards/:board/players/:player", s.apiSetScore, write...)
	api.DELETE("/boards/:board/players/:player", s.apiRemovePlayer, write...)
	api.GET("/boards/:board/players/:player/around", s.apiAround)
	api.GET("/locks", s.apiLocks)
	api.GET("/locks/:lock", s.apiLock)
	api.POST("/locks/:lock/acquire", s.apiAcquireLock, write...)
	api.POST("/locks/:lock/release", s.apiReleaseLock, write...)
	api.POST("/locks/:lock/extend", s.apiExtendLock, write...)
	api.POST("/locks/:lock/force-release", s.apiForceReleaseLock, write...)
	api.GET("/limiters", s.apiLimiters)
	api.GET("/limiters/:limiter", s.apiLimiter)
	api.PUT("/limiters/:limiter", s.apiSetLimiter, write...)
	api.POST("/limiters/:limiter/check", s.apiCheck, write...)
	api.GET("/limiters/:limiter/clients/:client", s.apiPeek)
	api.GET("/queues", s.apiQueues)
	api.GET("/queues/:queue", s.apiQueueStats)
	api.PUT("/queues/:queue", s.apiPutQueueSettings, write...)
	api.POST("/queues/:queue/jobs", s.apiEnqueue, write...)
	api.POST("/queues/:queue/poll", s.apiPoll, write...)
	api.POST("/queues/:queue/jobs/:id/ack", s.apiAck, write...)
	api.POST("/queues/:queue/jobs/:id/extend", s.apiExtend, write...)
	api.POST("/queues/:queue/jobs/:id/nack", s.apiNack, write...)
	api.DELETE("/queues/:queue/jobs/:id", s.apiDeleteJob, write...)
	api.POST("/queues/:queue/dead/:id/requeue", s.apiRequeue, write...)
	api.GET("/sources", s.apiSources)
	api.GET("/sources/:source", s.apiSource)
	api.PUT("/sources/:source", s.apiPutSource, write...)
	api.DELETE("/sources/:source", s.apiDeleteSource, write...)
	api.POST("/sources/:source/check", s.apiTrySource, write...)
	api.Any("/*", func(c echo.Context) error { return echo.ErrNotFound })
}
