package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// queuesPage lists every queue; with ?queue=NAME (the "open a queue" box) it goes to that queue.
func (s *server) queuesPage(c echo.Context) error {
	if asked, err := openByName(c, "queue", validName("queue"), queuePath); asked {
		return err
	}
	queues, err := s.Queues.Summaries(c.Request().Context())
	return s.render(c, http.StatusOK, views.QueuesPage(unavailable(s.chrome(c, "Queues", domain.TopicQueues), err), queues, s.adoptedViews(c, domain.SourceQueue)))
}

func (s *server) queuePage(c echo.Context) error {
	queue := httpio.PathParam(c, "queue")
	if err := domain.ValidateKeyName("queue", queue); err != nil {
		return err
	}
	return s.queuePageWith(c, http.StatusOK, queue, map[string]views.Form{})
}

// queuePageWith renders a queue's page with the given forms' states.
func (s *server) queuePageWith(c echo.Context, status int, queue string, forms map[string]views.Form) error {
	ctx := c.Request().Context()
	topic := panels.Queue.Topic(queue)
	v, err := s.queueView(ctx, queue)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	hist, topics, herr := s.pageHistory(c, domain.HistoryQueue, queue)
	if herr != nil {
		return herr
	}
	v = s.audience(c).Queue(v)
	d := views.QueuePageData{View: v, Settings: v.Settings, Forms: forms, History: hist}
	return s.render(c, status, views.QueuePage(unavailable(s.chrome(c, queue, append([]string{topic}, topics...)...), err), d))
}

// queueView is a queue as its page shows it, or, while Redis is down (err says so), a queue
// marked unread, with the default settings.
func (s *server) queueView(ctx context.Context, queue string) (domain.QueueView, error) {
	v, err := s.Queues.View(ctx, queue)
	if err != nil {
		v = domain.QueueView{Queue: queue, Settings: domain.DefaultQueueSettings(queue), OldestAtMs: -1, Unread: true,
			Enqueued: make([]int64, domain.ThroughputSeconds), Completed: make([]int64, domain.ThroughputSeconds)}
	}
	return v, err
}
