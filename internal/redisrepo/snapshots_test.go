package redisrepo

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
)

func TestSnapshotsReadBoardTopics(t *testing.T) {
	lb, rdb := newBoards(t)
	ctx := context.Background()
	for i := range 15 {
		lb.AddPoints(ctx, "big", string(rune('a'+i)), int64(i))
	}
	snaps, err := NewSnapshots(rdb, DefaultKeys).Read(ctx, []string{domain.BoardTopic("big"), domain.BoardTopic("empty"), domain.TopicStatus, "nonsense"})
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 {
		t.Fatalf("got topics %v, want the two board topics only", snaps)
	}
	big := snaps[domain.BoardTopic("big")].(domain.BoardTop)
	if len(big.Entries) != domain.BoardTopN || big.Players != 15 || big.Entries[0].Player != "o" || big.Entries[0].Rank != 1 {
		t.Errorf("big = %+v", big)
	}
	if empty := snaps[domain.BoardTopic("empty")].(domain.BoardTop); len(empty.Entries) != 0 || empty.Players != 0 {
		t.Errorf("empty = %+v", empty)
	}
}

// One pipelined round trip per read, whatever the number of topics.
func TestSnapshotsReadIsOneRoundTrip(t *testing.T) {
	_, rdb := newBoards(t)
	ctx := context.Background()
	topics := make([]string, 50)
	for i := range topics {
		topics[i] = domain.BoardTopic(string(rune('a' + i%26)))
	}
	hook := &countingHook{}
	rdb.AddHook(hook)
	if _, err := NewSnapshots(rdb, DefaultKeys).Read(ctx, topics); err != nil {
		t.Fatal(err)
	}
	if hook.pipelines != 1 || hook.single != 0 {
		t.Errorf("Read made %d pipelines and %d single calls, want 1 pipeline", hook.pipelines, hook.single)
	}
}
