package web

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes is zpulse's whole HTTP surface.
func (s *server) routes(e *echo.Echo) {
	// Operations and assets.
	get(e, "/healthz", s.healthz)
	get(e, "/readyz", s.readyz)
	get(e, "/metrics", echo.WrapHandler(promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{})))
	get(e, "/ws", s.serveWS)
	get(e, "/static/:file", s.asset)

	// Pages, live over /ws. Forms carry a CSRF token; changes need an admin session when an
	// admin token is configured, and wake the watcher when they succeed.
	pages := e.Group("", refuseCSRFInQuery, csrf(), s.authenticate(true))
	change := []echo.MiddlewareFunc{s.requireAdminPage, s.nudgeAfterChange}
	get(pages, "/", s.overviewPage)
	pages.POST("/demo", s.demoSwitch, change...)
	get(pages, "/boards", s.boardsPage)
	get(pages, "/boards/:board", s.boardPage)
	get(pages, "/boards/:board/entries", s.entriesPage)
	pages.POST("/boards/:board/points", s.boardForm("add", []string{"player", "points"}, s.addPointsAction), change...)
	pages.POST("/boards/:board/score", s.boardForm("score", []string{"player", "points"}, s.setScoreAction), change...)
	pages.POST("/boards/:board/remove", s.boardForm("remove", []string{"player", "confirm"}, s.removeAction), change...)
	pages.POST("/boards/:board/trim", s.boardForm("trim", []string{"keep", "confirm"}, s.trimAction), change...)
	pages.POST("/boards/:board/reset", s.boardForm("reset", []string{"confirm"}, s.resetAction), change...)
	pages.POST("/boards/:board/settings", s.boardForm("settings", []string{"tie_break", "periods", "retention_days"}, s.settingsAction), change...)
	get(pages, "/locks", s.locksPage)
	pages.POST("/locks/acquire", s.acquireLockForm, change...)
	pages.POST("/locks/release", s.releaseLockForm, change...)
	get(pages, "/locks/:lock/force-release", s.forceReleasePage)
	pages.POST("/locks/:lock/force-release", s.forceReleaseForm, change...)
	get(pages, "/limiters", s.limitersPage)
	get(pages, "/limiters/:limiter", s.limiterPage)
	pages.POST("/limiters/:limiter/policy", s.limiterPolicyForm, change...)
	pages.POST("/limiters/:limiter/try", s.limiterTryForm, change...)
	get(pages, "/queues", s.queuesPage)
	get(pages, "/queues/:queue", s.queuePage)
	pages.POST("/queues/:queue/enqueue", s.queueForm("enqueue", []string{"id", "priority", "delay", "run_at", "payload"}, s.enqueueAction), change...)
	pages.POST("/queues/:queue/settings", s.queueForm("settings", []string{"kind", "max_attempts"}, s.queueSettingsAction), change...)
	pages.POST("/queues/:queue/jobs/:id/requeue", s.jobButton(s.requeueJob), change...)
	pages.POST("/queues/:queue/jobs/:id/delete", s.jobButton(s.deleteJob), change...)
	get(pages, "/login", s.loginPage)
	pages.POST("/login", s.login)
	pages.POST("/logout", s.logout)
	pages.POST("/logout/everywhere", s.logoutEverywhere, s.requireAdminPage)

	// JSON API. Changes need "Authorization: Bearer <admin token>" when one is configured,
	// and wake the watcher when they succeed. A bearer token is checked wherever it is sent.
	api := e.Group("/api/v1", requireJSON, s.rateLimitAPI(), s.authenticate(false))
	write := []echo.MiddlewareFunc{s.requireAdminAPI, s.nudgeAfterChange}
	get(api, "/boards", s.apiBoards)
	get(api, "/boards/:board", s.apiSettings)
	api.PUT("/boards/:board", s.apiPutSettings, write...)
	api.DELETE("/boards/:board", s.apiReset, write...)
	api.POST("/boards/:board/scores", s.apiAddPoints, write...)
	api.POST("/boards/:board/batch/scores", s.apiAddPointsBatch, write...)
	api.POST("/boards/:board/trim", s.apiTrim, write...)
	get(api, "/boards/:board/top", s.apiTop)
	get(api, "/boards/:board/entries", s.apiEntries)
	get(api, "/boards/:board/players/:player", s.apiPlayer)
	api.PUT("/boards/:board/players/:player", s.apiSetScore, write...)
	api.DELETE("/boards/:board/players/:player", s.apiRemovePlayer, write...)
	get(api, "/boards/:board/players/:player/around", s.apiAround)
	get(api, "/locks", s.apiLocks)
	get(api, "/locks/:lock", s.apiLock)
	api.POST("/locks/:lock/acquire", s.apiAcquireLock, write...)
	api.POST("/locks/:lock/release", s.apiReleaseLock, write...)
	api.POST("/locks/:lock/extend", s.apiExtendLock, write...)
	api.POST("/locks/:lock/force-release", s.apiForceReleaseLock, write...)
	get(api, "/limiters", s.apiLimiters)
	get(api, "/limiters/:limiter", s.apiLimiter)
	api.PUT("/limiters/:limiter", s.apiSetLimiter, write...)
	api.POST("/limiters/:limiter/check", s.apiCheck, write...)
	get(api, "/limiters/:limiter/clients/:client", s.apiPeek)
	get(api, "/queues", s.apiQueues)
	get(api, "/queues/:queue", s.apiQueueStats)
	api.PUT("/queues/:queue", s.apiPutQueueSettings, write...)
	api.POST("/queues/:queue/jobs", s.apiEnqueue, write...)
	api.POST("/queues/:queue/batch/jobs", s.apiEnqueueBatch, write...)
	api.POST("/queues/:queue/poll", s.apiPoll, write...)
	api.POST("/queues/:queue/batch/poll", s.apiPollBatch, write...)
	api.POST("/queues/:queue/batch/ack", s.apiAckBatch, write...)
	api.POST("/queues/:queue/jobs/:id/ack", s.apiAck, write...)
	api.POST("/queues/:queue/jobs/:id/extend", s.apiExtend, write...)
	api.POST("/queues/:queue/jobs/:id/nack", s.apiNack, write...)
	api.DELETE("/queues/:queue/jobs/:id", s.apiDeleteJob, write...)
	api.POST("/queues/:queue/dead/:id/requeue", s.apiRequeue, write...)
	api.Any("/*", func(c echo.Context) error { return echo.ErrNotFound })
	get(api, "/openapi.json", serveOpenAPI)

	// Last, once every route is known: a known path asked with a method it does not answer.
	allowMethods(e)
}
