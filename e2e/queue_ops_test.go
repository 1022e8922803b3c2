package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Consumers in the browser: a poll's consumer shows in the queue page's consumers panel live,
// with its lease, and its ack moves it to no lease and one ack this minute; a paused queue
// carries a badge in /queues.
func TestConsumersPanelAndPausedBadge(t *testing.T) {
	t.Parallel()
	_, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := newBrowser(t)
	if status, body := postJSON(t, z.URL+"/api/v1/queues/ops-mail/jobs", map[string]any{"id": "j1", "priority": 1}); status != 201 {
		t.Fatalf("enqueue: %d %s", status, body)
	}
	do(t, ctx, "open the queue", chromedp.Navigate(z.URL+"/queues/ops-mail"))
	waitLive(t, ctx)
	status, body := postJSON(t, z.URL+"/api/v1/queues/ops-mail/poll", map[string]any{"lease_ms": 30000, "consumer": "worker-7"})
	if status != 200 {
		t.Fatalf("poll: %d %s", status, body)
	}
	row := `document.querySelector('[data-testid="consumers"] tr[data-consumer="worker-7"]')`
	waitJS(t, ctx, "worker-7 listed with its lease", `(() => { const r = `+row+`; return r !== null && r.querySelector('[data-testid="consumer-leases"]').textContent === "1"; })()`, eventWait)
	token := body[strings.Index(body, `"token":"`)+9:]
	token = token[:strings.IndexByte(token, '"')]
	if status, body := postJSON(t, z.URL+"/api/v1/queues/ops-mail/jobs/j1/ack", map[string]any{"token": token}); status != 204 {
		t.Fatalf("ack: %d %s", status, body)
	}
	waitJS(t, ctx, "worker-7's ack counted, its lease gone", `(() => { const r = `+row+`; return r.querySelector('[data-testid="consumer-leases"]').textContent === "0" && r.querySelector('[data-testid="consumer-now"]').textContent.trim().startsWith("1 /"); })()`, eventWait)

	if status, body := postJSON(t, z.URL+"/api/v1/queues/ops-mail/pause", map[string]any{}); status >= 300 {
		t.Fatalf("pause: %d %s", status, body)
	}
	do(t, ctx, "open the queues", chromedp.Navigate(z.URL+"/queues"))
	waitJS(t, ctx, "the paused badge", `(() => { const r = document.querySelector('tr[data-queue="ops-mail"] [data-testid="paused-badge"]'); return r !== null && r.offsetParent !== null; })()`, eventWait)
}
