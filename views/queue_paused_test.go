package views

import (
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

// A paused queue says so in the lists of queues (/queues and the overview share the panel),
// and a running one does not.
func TestQueuesListMarksPausedQueues(t *testing.T) {
	queues := render(t, QueuesPanel([]domain.QueueSummary{{Queue: "mail", Kind: domain.PriorityQueue, Paused: true}, {Queue: "sms", Kind: domain.PriorityQueue}}, domain.KeyDisplay{}))
	wantText(t, must(t, must(t, queues, "mail", has("data-queue", "mail")), "badge", has("data-testid", "paused-badge")), "paused")
	if find(must(t, queues, "sms", has("data-queue", "sms")), has("data-testid", "paused-badge")) != nil {
		t.Error("a running queue marked paused")
	}
}
