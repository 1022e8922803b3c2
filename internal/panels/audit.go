package panels

import (
	"context"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/audit"
	"github.com/zpulse/zpulse/views"
)

// Audit is the newest entries of the audit trail (a domain.AuditPage), topic "audit": the
// /audit page without filters. Only admins may subscribe to it (the websocket's topic check).
var Audit = declare(&Kind[struct{}, domain.AuditPage]{
	Topic: func(struct{}) string { return domain.TopicAudit },
	Parse: func(t string) (struct{}, bool) { return struct{}{}, t == domain.TopicAudit },
	Watch: func(_ context.Context, r *Rooms, _ struct{}) live.Watch {
		return live.Watch{Keys: []string{r.Keys.Audit()}}
	},
	Plan: func(ctx context.Context, r *Read, _ struct{}) func() (domain.AuditPage, bool) {
		read := audit.PlanLatest(ctx, r.Pipe, r.Rooms.Keys, domain.AuditPageDefault)
		return func() (domain.AuditPage, bool) { return read(), true }
	},
	Render: func(_ Env, _ struct{}, _ domain.Audience, p domain.AuditPage) templ.Component {
		return views.AuditPanel(p, true)
	},
	ID: func(struct{}) string { return views.AuditPanelID },
})
