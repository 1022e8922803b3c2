package web

import (
	"context"
	"fmt"

	"github.com/a-h/templ"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/views"
)

// TopicRenderer renders a live topic's snapshot into the fragment pushed to its subscribers.
// Each fragment's root carries the id of the element it replaces on the page. Fragments go
// to every viewer alike, anonymous ones too: with hideLockTokens (an admin token is
// configured) the locks list shows no holder's token and a queue's consumers no client
// address. Their links carry basePath, the
// prefix zpulse is served under (Deps.BasePath).
func TopicRenderer(bigKey int64, keys domain.KeyDisplay, hideLockTokens bool, basePath string) live.RenderFunc {
	ctx := views.WithBasePath(context.Background(), basePath)
	return func(topic string, snapshot any) ([]byte, error) {
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
			if hideLockTokens {
				v = v.Redacted()
			}
			comp = views.LocksPanel(v, true, keys)
		case domain.LimiterView:
			comp = views.LimiterPanel(v, true)
		case []domain.LimiterView:
			comp = views.LimitersOverview(v)
		case domain.QueueView:
			if hideLockTokens {
				v.Consumers = domain.RedactConsumers(v.Consumers)
			}
			comp = views.QueuePanel(v, "", true)
		case domain.History:
			comp = views.HistoryPanel(v)
		case domain.JobDetail:
			comp = views.JobPanel(v, "")
		case domain.SourceView:
			comp = views.SourcePanel(v)
		case []domain.QueueSummary:
			comp = views.QueuesPanel(v, keys)
		default:
			return nil, fmt.Errorf("web.TopicRenderer: no fragment for topic %q (a %T)", topic, snapshot)
		}
		return renderHTML(ctx, comp)
	}
}
