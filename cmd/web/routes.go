package main

import (
	"net/http"

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
	e.GET("/ws", echo.WrapHandler(http.HandlerFunc(s.Hub.ServeWS)))
	e.StaticFS("/static", static.FS)

	// Pages, live over /ws. Forms carry a CSRF token; changes need an admin session when an
	// admin token is configured.
	pages := e.Group("", csrf())
	pages.GET("/", s.overviewPage)
	pages.GET("/boards", s.openBoard)
	pages.GET("/boards/:board", s.boardPage)
	pages.POST("/boards/:board/points", s.addPointsForm, s.requireAdminPage)
	pages.GET("/locks", s.locksPage)
	pages.POST("/locks/acquire", s.acquireLockForm, s.requireAdminPage)
	pages.POST("/locks/release", s.releaseLockForm, s.requireAdminPage)
	pages.GET("/locks/:lock/force-release", s.forceReleasePage)
	pages.POST("/locks/:lock/force-release", s.forceReleaseForm, s.requireAdminPage)
	pages.GET("/login", s.loginPage)
	pages.POST("/login", s.login)
	pages.POST("/logout", s.logout)

	// JSON API. Changes need "Authorization: Bearer <admin token>" when one is configured.
	api := e.Group("/api/v1", requireJSON)
	api.POST("/boards/:board/scores", s.apiAddPoints, s.requireAdminAPI)
	api.GET("/boards/:board/top", s.apiTop)
	api.GET("/boards/:board/players/:player", s.apiPlayer)
	api.GET("/locks", s.apiLocks)
	api.GET("/locks/:lock", s.apiLock)
	api.POST("/locks/:lock/acquire", s.apiAcquireLock, s.requireAdminAPI)
	api.POST("/locks/:lock/release", s.apiReleaseLock, s.requireAdminAPI)
	api.POST("/locks/:lock/extend", s.apiExtendLock, s.requireAdminAPI)
	api.POST("/locks/:lock/force-release", s.apiForceReleaseLock, s.requireAdminAPI)
	api.Any("/*", func(c echo.Context) error { return echo.ErrNotFound })
}
