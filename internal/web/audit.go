package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// auditWriteTimeout bounds one audit write; it outlives the request's own context, so a
// client that hangs up after its change does not take the change's entry with it.
const auditWriteTimeout = 2 * time.Second

// auditTrail records change requests in the audit trail (Deps.Trail): who, what, and how it
// ended. A failed write is logged and counted, never turned into the request's error.
type auditTrail struct {
	trail    domain.AuditLog
	log      *slog.Logger
	failures prometheus.Counter
}

func newAuditTrail(d Deps) *auditTrail {
	failures := prometheus.NewCounter(prometheus.CounterOpts{Name: "zpulse_audit_write_failures_total",
		Help: "Change requests whose audit trail entry could not be written (the change itself stands)."})
	if d.Registry != nil {
		d.Registry.MustRegister(failures)
	}
	return &auditTrail{trail: d.Trail, log: d.Log, failures: failures}
}

// around records every request of a route whose action is action, once it is answered.
func (a *auditTrail) around(action string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			err := next(c)
			a.record(c, action, err)
			return err
		}
	}
}

// record writes the entry of a change request that action names, once it is answered: err
// is what its handler (or a check before it) returned.
func (a *auditTrail) record(c echo.Context, action string, err error) {
	if a.trail == nil {
		return
	}
	actor := domain.ActorOf(c.Request().Context())
	e := domain.AuditEntry{Actor: actor.Name, Role: actor.Role.String(), Via: viaOf(c), Action: action, Target: auditTarget(c),
		Detail: httpio.AuditDetailOf(c), Outcome: outcomeOf(c, err), Client: c.RealIP(),
		RequestID: c.Response().Header().Get(echo.HeaderXRequestID)}
	if e.Via == "" {
		e.Via = actor.Via
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), auditWriteTimeout)
	defer cancel()
	if werr := a.trail.Record(ctx, e); werr != nil {
		a.failures.Inc()
		a.log.Warn("audit: an entry was not written", "action", action, "target", e.Target, "outcome", e.Outcome, "err", werr)
	}
}

// viaOf is how the request came: the API or a page's form.
func viaOf(c echo.Context) string {
	if strings.HasPrefix(c.Path(), "/api/") {
		return domain.ViaAPI
	}
	return domain.ViaPage
}

// outcomeOf is "ok" for a change answered below 400, else the error's code as the API's
// envelope names it.
func outcomeOf(c echo.Context, err error) string {
	if err != nil {
		_, code, _ := httpio.DescribeError(err)
		return code
	}
	if status := c.Response().Status; status >= http.StatusBadRequest {
		return strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	}
	return domain.AuditOK
}

// auditTarget names what a change request is about, from its route's parameters: a board, a
// queue (its job after a slash), a lock, a limiter, a source, a token, a schedule, a ban.
func auditTarget(c echo.Context) string {
	param := func(name string) string { return httpio.PathParam(c, name) }
	for _, kind := range []string{"board", "queue", "lock", "limiter", "source", "token", "schedule"} {
		v := param(kind)
		if v == "" {
			continue
		}
		if id := param("id"); kind == "queue" && id != "" {
			return kind + ":" + v + "/" + id
		}
		return kind + ":" + v
	}
	if p := param("player"); p != "" {
		return "player:" + p
	}
	return ""
}
