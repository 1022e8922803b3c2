package web

import (
	"context"
	"fmt"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// TopicRenderer renders a live topic's snapshot, as an audience may see it (the one the
// websocket's reader had when it connected, see serveWS), into the fragment pushed to that
// audience's subscribers: lock tokens, payloads and client ids go through the audience as
// on the pages. Each fragment's root carries the id of the element it replaces on the page.
// Their links carry basePath, the prefix zpulse is served under (Deps.BasePath).
func TopicRenderer(bigKey int64, keys domain.KeyDisplay, basePath string) live.RenderFunc {
	ctx := views.WithBasePath(context.Background(), basePath)
	return func(topic string, aud domain.Audience, snapshot any) ([]byte, error) {
		var comp templ.Component
		switch v := snapshot.(type) {
		case live.Status:
			comp = views.StatusBanner(views.Status{Available: v.Available, Detail: v.Detail})
		case domain.BoardTop:
			_, _, n, _ := domain.ParseBoardTopic(topic)
			comp = views.BoardPanel(v, n, bigKey, true)
		case []domain.BoardSummary:
			comp = views.BoardsPanel(v, keys)
		case domain.HeldLocks:
			comp = views.LocksPanel(aud.Locks(v), true, keys)
		case domain.LimiterView:
			comp = views.LimiterPanel(aud.Limiter(v), true)
		case []domain.LimiterView:
			comp = views.LimitersOverview(aud.Limiters(v))
		case domain.QueueView:
			comp = views.QueuePanel(aud.Queue(v), "", true)
		case domain.History:
			comp = views.HistoryPanel(v)
		case domain.JobDetail:
			comp = views.JobPanel(aud.Job(v), "")
		case domain.SourceView:
			comp = views.SourcePanel(aud.Source(v))
		case []domain.QueueSummary:
			comp = views.QueuesPanel(v, keys)
		default:
			return nil, fmt.Errorf("web.TopicRenderer: no fragment for topic %q (a %T)", topic, snapshot)
		}
		return renderHTML(ctx, comp)
	}
}
