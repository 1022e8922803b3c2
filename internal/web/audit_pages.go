package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// auditPage is the audit trail with the query's filters; unfiltered, its newest entries are
// live.
func (s *server) auditPage(c echo.Context) error {
	f, err := httpio.AuditQuery(c)
	if err != nil {
		return err
	}
	page, err := s.Trail.List(c.Request().Context(), f)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	d := views.AuditPageData{Filter: f, Page: page}
	var topics []string
	if d.Live() {
		topics = []string{domain.TopicAudit}
	}
	return s.render(c, http.StatusOK, views.AuditPage(unavailable(s.chrome(c, "Audit trail", topics...), err), d))
}

// auditExportMax is the most entries one CSV export of the trail writes.
const auditExportMax = 100_000

// auditExport streams the entries the query's filters pick as CSV, newest first, a page of
// the trail at a time.
func (s *server) auditExport(c echo.Context) error {
	f, err := httpio.AuditQuery(c)
	if err != nil {
		return err
	}
	f.Limit = domain.AuditPageMax
	ctx := c.Request().Context()
	page, err := s.Trail.List(ctx, f)
	if err != nil {
		return err
	}
	w := csvWriter(c, "zpulse-audit.csv", "id", "at", "actor", "role", "via", "action", "target", "detail", "outcome", "client", "request_id")
	for rows := 0; ; {
		for _, e := range page.Entries {
			_ = w.Write([]string{e.ID, e.At.Format(time.RFC3339Nano), csvCell(e.Actor), e.Role, e.Via, csvCell(e.Action),
				csvCell(e.Target), csvCell(e.Detail), csvCell(e.Outcome), csvCell(e.Client), csvCell(e.RequestID)})
			rows++
		}
		if page.NextCursor == "" || rows >= auditExportMax {
			break
		}
		f.Cursor = page.NextCursor
		if page, err = s.Trail.List(ctx, f); err != nil {
			s.Log.Warn("audit export cut short", "rows", rows, "err", err)
			break
		}
	}
	w.Flush()
	return w.Error()
}

// recentPages are the pages that show admins their latest changes, and the trail's filter of
// each (a page of one thing: its target, from the route's parameters).
var recentPages = map[string]func(c echo.Context) domain.AuditFilter{
	"/boards/:board":          targetFilter,
	"/queues/:queue":          targetFilter,
	"/queues/:queue/jobs/:id": targetFilter,
	"/limiters/:limiter":      targetFilter,
	"/locks":                  func(echo.Context) domain.AuditFilter { return domain.AuditFilter{Action: "lock."} },
}

func targetFilter(c echo.Context) domain.AuditFilter {
	return domain.AuditFilter{Target: auditTarget(c)}
}

// recentChangesShown is how many of its latest changes a page shows.
const recentChangesShown = 5

// recentChanges is the latest entries of the trail about what the page shows, for an admin on
// one of recentPages; nil elsewhere, and when the trail cannot be read (the page still shows).
func (s *server) recentChanges(c echo.Context) *views.Recent {
	filter, ok := recentPages[c.Path()]
	if !ok || s.Trail == nil || c.Request().Method != http.MethodGet || !who(c).may(domain.RoleAdmin) {
		return nil
	}
	f := filter(c)
	f.Limit = recentChangesShown
	page, err := s.Trail.List(c.Request().Context(), f)
	if err != nil {
		return nil
	}
	q := url.Values{}
	if f.Target != "" {
		q.Set("target", f.Target)
	}
	if f.Action != "" {
		q.Set("action", f.Action)
	}
	return &views.Recent{Entries: page.Entries, Query: q.Encode()}
}
