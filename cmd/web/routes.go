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
	pages.GET("/limiters", s.limitersPage)
	pages.GET("/limiters/:limiter", s.limiterPage)
	pages.POST("/limiters/:limiter/policy", s.limiterPolicyForm, s.requireAdminPage)
	pages.POST("/limiters/:limiter/try", s.limiterTryForm, s.requireAdminPage)
	pages.GET("/login", s.loginPage)
	pages.POST("/login", s.login)
	pages.POST("/logout", s.logout)

	// JSON API. Changes need "Authorization: Bearer <admin token>" when one is configured.
	api := e.Group("/api/v1", requireJSON, s.rateLimitAPI())
	api.POST("/boards/:board/scores", s.apiAddPoints, s.requireAdminAPI)
	api.GET("/boards/:board/top", s.apiTop)
	api.GET("/boards/:board/players/:player", s.apiPlayer)
	api.GET("/limiters", s.apiLimiters)
	api.GET("/limiters/:limiter", s.apiLimiter)
	api.PUT("/limiters/:limiter", s.apiSetLimiter, s.requireAdminAPI)
	api.POST("/limiters/:limiter/check", s.apiCheck, s.requireAdminAPI)
	api.GET("/limiters/:limiter/clients/:client", s.apiPeek)
	api.Any("/*", func(c echo.Context) error { return echo.ErrNotFound })
}
