package redisrepo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// wantWrongType fails unless err is domain.CodeWrongType naming key and its type.
func wantWrongType(t *testing.T, what string, err error, key, typ string) {
	t.Helper()
	msg := domain.ErrorMessage(err)
	if domain.ErrorCode(err) != domain.CodeWrongType || !strings.Contains(msg, `"`+key+`"`) || !strings.Contains(msg, "is a "+typ) {
		t.Errorf("%s: err = %v, want wrong_type naming %q as a %s", what, err, key, typ)
	}
}

// Another service's LIST at queue:rq and HASH at leaderboard:cfg (issue 19): every write on
// those names is refused with wrong_type naming the key and its type, nothing is indexed or
// written beside them, single reads say wrong_type, and once the names are indexed anyway the
// lists, the watcher, the history recorder and /metrics' read go on, marking those entries.
func TestKeysOfAnotherTypeAtZpulsesNames(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		clock := domain.NewManualClock(testNow)
		svc := openTest(t, rdb, clock)
		rdb.RPush(ctx, "queue:rq", "their-job")
		rdb.HSet(ctx, "leaderboard:cfg", "colour", "blue")

		q, lb := svc.Queues, svc.Leaderboards
		_, err := q.Enqueue(ctx, "rq", domain.NewJob{ID: "a", HasPriority: true, Priority: 1})
		wantWrongType(t, "enqueue", err, "queue:rq", "list")
		_, err = q.EnqueueBatch(ctx, "rq", []domain.NewJob{{ID: "a", HasPriority: true, Priority: 1}})
		wantWrongType(t, "enqueue batch", err, "queue:rq", "list")
		_, _, err = q.Poll(ctx, "rq", domain.PollOptions{})
		wantWrongType(t, "poll", err, "queue:rq", "list")
		_, _, err = q.Poll(ctx, "rq", domain.PollOptions{Lease: time.Second})
		wantWrongType(t, "poll with a lease", err, "queue:rq", "list")
		kind := domain.DelayedQueue
		_, err = q.PatchSettings(ctx, "rq", domain.QueueSettingsPatch{Kind: &kind})
		wantWrongType(t, "settings", err, "queue:rq", "list")
		wantWrongType(t, "pause", q.SetPaused(ctx, "rq", true), "queue:rq", "list")
		_, err = q.View(ctx, "rq")
		wantWrongType(t, "view", err, "queue:rq", "list")
		_, err = q.Jobs(ctx, "rq", domain.JobListOptions{State: domain.JobWaiting, Limit: 10})
		wantWrongType(t, "jobs", err, "queue:rq", "list")

		_, err = lb.AddPoints(ctx, "cfg", "p", 1)
		wantWrongType(t, "add", err, "leaderboard:cfg", "hash")
		_, err = lb.SetScore(ctx, "cfg", "p", 1)
		wantWrongType(t, "set", err, "leaderboard:cfg", "hash")
		_, err = lb.AddPointsBatch(ctx, "cfg", []domain.ScoreAdd{{Player: "p", Points: 1}})
		wantWrongType(t, "add batch", err, "leaderboard:cfg", "hash")
		_, err = lb.Reset(ctx, "cfg")
		wantWrongType(t, "reset", err, "leaderboard:cfg", "hash")
		_, err = lb.Top(ctx, "cfg", domain.AllTime, 10)
		wantWrongType(t, "top", err, "leaderboard:cfg", "hash")

		// Nothing changed: their keys as they were, no key of zpulse's about them, no index.
		if got := rdb.LRange(ctx, "queue:rq", 0, -1).Val(); len(got) != 1 || got[0] != "their-job" {
			t.Errorf("queue:rq = %v", got)
		}
		if got := rdb.HGetAll(ctx, "leaderboard:cfg").Val(); len(got) != 1 || got["colour"] != "blue" {
			t.Errorf("leaderboard:cfg = %v", got)
		}
		for _, pattern := range []string{"*rq*", "*cfg*"} {
			if keys := redistest.KeysOnEveryMaster(t, rdb, pattern); len(keys) != 1 {
				t.Errorf("keys %s = %v, want only the other service's", pattern, keys)
			}
		}
		for _, index := range []string{store.DefaultKeys.QueueIndex(), store.DefaultKeys.BoardIndex()} {
			if n := rdb.SCard(ctx, index).Val(); n != 0 {
				t.Errorf("%s holds %d names", index, n)
			}
		}
		if err := svc.Discovery.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if qs, _ := q.Summaries(ctx); len(qs) != 0 {
			t.Errorf("discovery took a list for a queue: %+v", qs)
		}

		// Indexed anyway (an older zpulse, or a key replaced after zpulse wrote it): the lists
		// and every reader of many names stay whole and mark the entry.
		rdb.SAdd(ctx, store.DefaultKeys.QueueIndex(), "rq")
		rdb.SAdd(ctx, store.DefaultKeys.BoardIndex(), "cfg")
		if _, err := q.Enqueue(ctx, "fine", domain.NewJob{ID: "a", HasPriority: true, Priority: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := lb.AddPoints(ctx, "ok", "p", 1); err != nil {
			t.Fatal(err)
		}
		if err := svc.Discovery.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		qs, err := q.Summaries(ctx)
		if err != nil || len(qs) != 2 || qs[1].Queue != "rq" || qs[1].WrongType != "list" || qs[0].WrongType != "" || qs[0].Waiting != 1 {
			t.Errorf("queue summaries = %+v, %v", qs, err)
		}
		bs, err := lb.Summaries(ctx)
		if err != nil || len(bs) != 2 || bs[0].Board != "cfg" || bs[0].WrongType != "hash" || bs[1].WrongType != "" || bs[1].Players != 1 {
			t.Errorf("board summaries = %+v, %v", bs, err)
		}
		snaps, err := svc.Snapshots.Read(ctx, []string{domain.TopicQueues, domain.TopicBoards}, live.Poll{})
		if err != nil {
			t.Fatal(err)
		}
		if got := snaps[domain.TopicQueues].([]domain.QueueSummary); len(got) != 2 || got[1].WrongType != "list" {
			t.Errorf("queues topic = %+v", got)
		}
		if got := snaps[domain.TopicBoards].([]domain.BoardSummary); len(got) != 2 || got[0].WrongType != "hash" {
			t.Errorf("boards topic = %+v", got)
		}
		if _, err := svc.Business.Snapshot(ctx, 100); err != nil {
			t.Errorf("metrics read: %v", err)
		}
		if err := svc.History.Record(ctx); err != nil {
			t.Errorf("history: %v", err)
		}
	})
}

// A board zpulse wrote to and another service then replaced with a LIST: the next add is
// refused (its score script's guard), and the board's index entry is not refreshed by it.
func TestBoardReplacedByAnotherType(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		lb, _ := newBoardsOn(t, rdb)
		if _, err := lb.AddPoints(ctx, "game", "p", 1); err != nil {
			t.Fatal(err)
		}
		rdb.Del(ctx, "leaderboard:game")
		rdb.RPush(ctx, "leaderboard:game", "x")
		_, err := lb.AddPoints(ctx, "game", "p", 1)
		wantWrongType(t, "add", err, "leaderboard:game", "list")
		_, err = lb.AddPoints(ctx, "game", "p", 1) // the careful path now: scores first
		wantWrongType(t, "second add", err, "leaderboard:game", "list")
		if got := rdb.LRange(ctx, "leaderboard:game", 0, -1).Val(); len(got) != 1 {
			t.Errorf("leaderboard:game = %v", got)
		}
	})
}
