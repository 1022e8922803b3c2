package compat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// The second article's layouts beyond its examples, adopted: its daily board hash-tagged as
// it advises for a Cluster ({game}:rank:<yyyymmdd>), dated in the service's zone, with a
// max_ts of the service's; its token bucket in the service's own fields and unit.

// shanghai is the zone of a service dating its keys in China.
var shanghai = func() *time.Location {
	l, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		panic(err)
	}
	return l
}()

// At 01:00 in Shanghai (17:00 UTC the day before) the service writes the new day's key; zpulse
// shows that day, true points with the service's max_ts, ties by who reached them first,
// paged like its own boards; the service's own rank query agrees with zpulse's, and what the
// service writes next zpulse reads at once.
func TestZhDailyBoardBothWays(t *testing.T) { redistest.ForEachTopology(t, testZhDailyBoardBothWays) }

func testZhDailyBoardBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	clock.Set(time.Date(2026, 7, 25, 17, 0, 0, 0, time.UTC))
	const maxTS = 20_000_000_000 // ⌊score / 10^10⌋ would read one point too many
	get(svc.Sources.SaveSource(ctx, domain.Source{Name: "zh-daily", Kind: domain.SourceBoard, Key: "{zh}:rank:{yyyymmdd}",
		Encoding: string(domain.TieBreakFirstReachedE10), Zone: "Asia/Shanghai", MaxTS: maxTS}))(t)
	d := DailyRank{RDB: rdb, Prefix: "{zh}:rank:", Zone: shanghai, MaxTS: maxTS}
	now := clock.Now()
	for _, w := range []struct {
		player string
		points int64
		late   time.Duration
	}{{"user:1002", 150, time.Second}, {"user:1001", 150, 0}, {"user:1003", 90, 0}, {"user:1004", 150, 2 * time.Second}, {"user:1005", 10, 0}} {
		noErr(t, d.SetTieBreak(ctx, now, w.player, w.points, now.Add(w.late)))
	}
	want := "user:1001=150 user:1002=150 user:1004=150 user:1003=90 user:1005=10"
	var got []string
	after := ""
	for {
		page := get(svc.Sources.SourceEntries(ctx, "zh-daily", after, 2))(t)
		for _, e := range page.Entries {
			got = append(got, fmt.Sprintf("%s=%d", e.Player, e.Score))
			rank, _, err := d.MyRank(ctx, now, e.Player)
			if err != nil || rank != e.Rank {
				t.Errorf("%s: the article's rank %d, zpulse's %d (%v)", e.Player, rank, e.Rank, err)
			}
		}
		if page.NextCursor == nil {
			break
		}
		after = *page.NextCursor
	}
	if strings.Join(got, " ") != want {
		t.Errorf("zpulse pages %v, want %s", got, want)
	}
	if v := get(svc.Sources.SourceView(ctx, "zh-daily"))(t); v.Key != "{zh}:rank:20260726" || v.Key != d.Key(now) {
		t.Errorf("zpulse reads %s, the service writes %s (want the Shanghai day, 20260726)", v.Key, d.Key(now))
	}
	noErr(t, d.SetTieBreak(ctx, now, "user:1005", 400, now.Add(3*time.Second)))
	if e := get(svc.Sources.SourcePlayer(ctx, "zh-daily", "user:1005"))(t); e.Rank != 1 || e.Score != 400 {
		t.Errorf("after the service's write: %+v", e)
	}
	around := get(svc.Sources.SourceAround(ctx, "zh-daily", "user:1002", 1))(t)
	if len(around) != 3 || around[0].Player != "user:1001" || around[2].Player != "user:1004" {
		t.Errorf("around user:1002: %+v", around)
	}
}

// The article's token bucket with its own field names (令牌数, 上次填充时间) and the time in
// seconds, at a hash-tagged key: the service's takes show on zpulse's page, zpulse's try takes
// from the same tokens, and the service's next request sees it.
func TestZhTokenBucketBothWays(t *testing.T) { redistest.ForEachTopology(t, testZhTokenBucketBothWays) }

func testZhTokenBucketBothWays(t *testing.T, rdb redis.UniversalClient) {
	svc, clock := setup(t, rdb)
	ctx := context.Background()
	get(svc.Sources.SaveSource(ctx, domain.Source{Name: "zh-bucket", Kind: domain.SourceLimiter, Key: "limit:zh:{{client}}", Encoding: domain.SourceTokenBucket,
		Limit: 3, RatePerS: 1, TokensField: "令牌数", TimeField: "上次填充时间", TimeUnit: domain.SourceSeconds}))(t)
	b := TokenBucket{RDB: rdb, Key: "limit:zh:{user1001}", RatePerMs: 0.001, Capacity: 3, TokensField: "令牌数", TimeField: "上次填充时间", Seconds: true}
	for range 2 {
		if ok := get(b.Allow(ctx, clock.Now()))(t); !ok {
			t.Fatal("the article refused within its capacity")
		}
	}
	noErr(t, svc.Discovery.Refresh(ctx))
	v := get(svc.Sources.SourceView(ctx, "zh-bucket"))(t)
	if len(v.Clients) != 1 || v.Clients[0].Client != "user1001" || v.Clients[0].Count != 1 || v.Clients[0].Key != b.Key {
		t.Errorf("zpulse shows %+v, want user1001 with 1 token", v.Clients)
	}
	if r := get(svc.Sources.TrySource(ctx, "zh-bucket", "user1001"))(t); !r.Allowed || r.Remaining != 0 {
		t.Errorf("zpulse's try = %+v, want the last token", r)
	}
	if ok := get(b.Allow(ctx, clock.Now()))(t); ok {
		t.Error("the article took a fourth token: it did not see zpulse's try")
	}
	if ts := rdb.HGet(ctx, b.Key, "上次填充时间").Val(); ts != fmt.Sprint(clock.Now().Unix()) {
		t.Errorf("the refill time in the service's unit: %q, want %d", ts, clock.Now().Unix())
	}
	clock.Advance(time.Second)
	if r := get(svc.Sources.TrySource(ctx, "zh-bucket", "user1001"))(t); !r.Allowed {
		t.Errorf("a second later (1 token/s) zpulse's try = %+v", r)
	}
	if ok := get(b.Allow(ctx, clock.Now()))(t); ok {
		t.Error("the article took a token zpulse had taken")
	}
	clock.Advance(time.Second)
	if ok := get(b.Allow(ctx, clock.Now()))(t); !ok {
		t.Error("the article refused the token refilled after zpulse's try")
	}
}
