package redisrepo

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestSnapshotsReadBoardTopics(t *testing.T) {
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	for i := range 15 {
		lb.AddPoints(ctx, "big", string(rune('a'+i)), int64(i))
	}
	big10, empty10 := domain.BoardTopic("big", domain.AllTime, 10), domain.BoardTopic("empty", domain.AllTime, 10)
	snaps, err := newSnapshots(rdb, DefaultKeys, lb.found, clocks{script: clock}).Read(ctx, []string{big10, empty10, domain.TopicStatus, "nonsense"})
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 {
		t.Fatalf("got topics %v, want the two board topics only", snaps)
	}
	big := snaps[big10].(domain.BoardTop)
	if len(big.Entries) != 10 || big.UniqueToday != 15 || big.Players != 15 || big.Entries[0].Player != "o" || big.Entries[0].Rank != 1 {
		t.Errorf("big = %+v", big)
	}
	if empty := snaps[empty10].(domain.BoardTop); len(empty.Entries) != 0 || empty.Players != 0 {
		t.Errorf("empty = %+v", empty)
	}
}

// One pipelined round trip per read, whatever the number of topics.
func TestSnapshotsReadIsOneRoundTrip(t *testing.T) {
	_, rdb, clock := newBoards(t)
	ctx := context.Background()
	topics := make([]string, 50)
	for i := range topics {
		topics[i] = domain.BoardTopic(string(rune('a'+i%26)), domain.AllTime, domain.BoardTopNs[i%4])
	}
	hook := &countingHook{}
	rdb.AddHook(hook)
	topics = append(topics, domain.TopicBoards)
	if _, err := openTest(t, rdb, clock).Snapshots.Read(ctx, topics); err != nil {
		t.Fatal(err)
	}
	if hook.pipelines != 1 || hook.single != 0 {
		t.Errorf("Read made %d pipelines and %d single calls, want 1 pipeline", hook.pipelines, hook.single)
	}
}

// A key of another type where a board should be spoils that board's panel only.
func TestSnapshotsSurviveAKeyOfAnotherType(t *testing.T) {
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	rdb.Set(ctx, "leaderboard:oops", "not a sorted set", 0)
	lb.AddPoints(ctx, "fine", "a", 1)
	oops, fine := domain.BoardTopic("oops", domain.AllTime, 10), domain.BoardTopic("fine", domain.AllTime, 10)
	snaps, err := newSnapshots(rdb, DefaultKeys, lb.found, clocks{script: clock}).Read(ctx, []string{oops, fine})
	if err != nil {
		t.Fatalf("one WRONGTYPE failed the whole read: %v", err)
	}
	if got := snaps[fine].(domain.BoardTop); got.Players != 1 {
		t.Errorf("the good board: %+v", got)
	}
	if got := snaps[oops].(domain.BoardTop); len(got.Entries) != 0 {
		t.Errorf("the bad board: %+v", got)
	}
}
