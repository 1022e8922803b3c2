package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// A service's daily board at game:rank:<today>, written with the second article's
// points × 10^10 + (max_ts − ts), adopted from the page, shows live with true points and
// follows the service's writes without a reload.
func TestAdoptedBoardShowsLive(t *testing.T) {
	t.Parallel()
	rdb, addr := ownRedis(t)
	z := startZpulse(t, addr)
	ctx := context.Background()
	now := time.Now().UTC()
	key := "game:rank:" + now.Format("20060102")
	e10 := func(points int64, at time.Time) float64 {
		return float64(points*10_000_000_000 + (9_999_999_999 - at.Unix()))
	}
	rdb.ZAdd(ctx, key, redis.Z{Score: e10(50, now.Add(-time.Minute)), Member: "user:1001"}, redis.Z{Score: e10(50, now), Member: "user:1002"})

	b := newBrowser(t)
	do(t, b, "open the sources page", chromedp.Navigate(z.URL+"/sources"))
	eval[bool](t, b, `(()=>{ // adopt the daily board through the form
		const f = document.querySelector('section[aria-label="Adopt a source"] form');
		f.querySelector('[name=name]').value = 'daily';
		f.querySelector('[name=kind]').value = 'board';
		f.querySelector('[name=key]').value = 'game:rank:{yyyymmdd}';
		f.querySelector('[name=encoding][value=first_reached_e10]').checked = true;
		f.submit();
		return true;
	})()`)
	do(t, b, "the source's page after the redirect", chromedp.WaitVisible(`[data-testid="source-entries"]`))
	if p := location(t, b).Path; p != "/sources/daily" {
		t.Fatalf("adopting led to %s, want /sources/daily", p)
	}
	waitLive(t, b)
	rows := `[...document.querySelectorAll('[data-testid="source-entries"] tr[data-player]')].map(tr => tr.dataset.rank + '. ' + tr.dataset.player + ' ' + tr.cells[2].textContent.trim()).join(' | ')`
	if got := eval[string](t, b, rows); got != "1. user:1001 50 | 2. user:1002 50" {
		t.Errorf("adopted board shows %q, want true points, first to 50 first", got)
	}
	rdb.ZAdd(ctx, key, redis.Z{Score: e10(70, time.Now()), Member: "user:1003"}) // the service writes
	waitJS(t, b, "the service's write, live", fmt.Sprintf(`%s.startsWith('1. user:1003 70')`, rows), eventWait)
}
