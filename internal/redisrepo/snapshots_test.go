package redisrepo

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/live"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

func TestSnapshotsReadBoardTopics(t *testing.T) {
	t.Parallel()
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	for i := range 15 {
		lb.AddPoints(ctx, "big", string(rune('a'+i)), int64(i))
	}
	big10, empty10 := domain.BoardTopic("big", domain.AllTime, 10), domain.BoardTopic("empty", domain.AllTime, 10)
	snaps, err := newSnapshots(rdb, store.DefaultKeys, lb.Found, store.Clocks{Script: clock}, nil, nil, domain.DefaultCompletedPolicy).Read(ctx, []string{big10, empty10, domain.TopicStatus, "nonsense"}, live.Poll{})
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
	t.Parallel()
	_, rdb, clock := newBoards(t)
	ctx := context.Background()
	topics := make([]string, 50)
	for i := range topics {
		topics[i] = domain.BoardTopic(string(rune('a'+i%26)), domain.AllTime, domain.BoardTopNs[i%4])
	}
	topics = append(topics, domain.TopicBoards)
	snaps := openTest(t, rdb, clock).Snapshots
	if _, err := snaps.Read(ctx, topics, live.Poll{}); err != nil { // loads the scripts, which a test before it may not have
		t.Fatal(err)
	}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	if _, err := snaps.Read(ctx, topics, live.Poll{}); err != nil {
		t.Fatal(err)
	}
	if hook.Pipelines != 1 || hook.Single != 0 {
		t.Errorf("Read made %d pipelines and %d single calls, want 1 pipeline", hook.Pipelines, hook.Single)
	}
}

// A key of another type where a board should be spoils that board's panel only.
func TestSnapshotsSurviveAKeyOfAnotherType(t *testing.T) {
	t.Parallel()
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	rdb.Set(ctx, "leaderboard:oops", "not a sorted set", 0)
	lb.AddPoints(ctx, "fine", "a", 1)
	oops, fine := domain.BoardTopic("oops", domain.AllTime, 10), domain.BoardTopic("fine", domain.AllTime, 10)
	snaps, err := newSnapshots(rdb, store.DefaultKeys, lb.Found, store.Clocks{Script: clock}, nil, nil, domain.DefaultCompletedPolicy).Read(ctx, []string{oops, fine}, live.Poll{})
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

// A queue topic costs at most 10 commands per tick (issue 16): its settings, one script and
// an HGETALL per minute of throughput, however full the queue. And the view of an idle queue
// does not change from one second to the next: it holds absolute times only.
func TestSnapshotsQueueTopicIsCheapAndStable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow.Add(30 * time.Second))
	svc := openTest(t, rdb, clock)
	for i := range 30 {
		if _, err := svc.Queues.Enqueue(ctx, "jobs", domain.NewJob{ID: fmt.Sprintf("job-%d", i), Priority: i % 10, HasPriority: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Queues.Enqueue(ctx, domain.DelayedQueueDefault, domain.NewJob{ID: "soon", Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Queues.Poll(ctx, "jobs", domain.PollOptions{Lease: time.Hour}); err != nil {
		t.Fatal(err)
	}
	topics := []string{domain.QueueTopic("jobs"), domain.QueueTopic(domain.DelayedQueueDefault)}
	if _, err := svc.Snapshots.Read(ctx, topics, live.Poll{}); err != nil { // loads the script
		t.Fatal(err)
	}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	first, err := svc.Snapshots.Read(ctx, topics, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	if perTopic := hook.Commands / len(topics); perTopic > 10 || hook.Pipelines != 1 {
		t.Errorf("a queue topic cost %d commands in %d round trips, want at most 10 in one", perTopic, hook.Pipelines)
	}
	jobs := first[domain.QueueTopic("jobs")].(domain.QueueView)
	if jobs.Waiting != 29 || jobs.Processing != 1 || len(jobs.InFlight) != 1 || jobs.InFlight[0].Attempts != 1 || jobs.ByPriority[9] != 3 || jobs.OldestAtMs != clock.Now().UnixMilli() {
		t.Errorf("jobs view = %+v", jobs)
	}
	if later := first[domain.QueueTopic(domain.DelayedQueueDefault)].(domain.QueueView); later.Scheduled != 1 || len(later.NextDue) != 1 || later.NextDue[0].AtMs != clock.Now().Add(time.Hour).UnixMilli() {
		t.Errorf("later view = %+v", later)
	}
	// Past the throughput window (the sparkline of the enqueues moves until then), a read
	// one second after another is equal.
	clock.Advance((domain.ThroughputSeconds + 1) * time.Second)
	a, err := svc.Snapshots.Read(ctx, topics, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	b, err := svc.Snapshots.Read(ctx, topics, live.Poll{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("an idle queue's view changed in one second:\n%+v\n%+v", a, b)
	}
}

// The live path reads a limiter in the same single round trip as every other topic.
func TestSnapshotsReadLimiterTopics(t *testing.T) {
	t.Parallel()
	rdb, clock := redistest.DB(t), domain.NewManualClock(testNow)
	l := openTest(t, rdb, clock).Limiters
	ctx := context.Background()
	allow(t, l, "default", "c-1")
	l.Flush(ctx)
	s := newSnapshots(rdb, store.DefaultKeys, store.NewDiscovery(rdb, store.DefaultKeys, nil), store.Clocks{Script: clock}, nil, nil, domain.DefaultCompletedPolicy)
	topics := []string{domain.LimiterTopic("default"), domain.BoardTopic("b", domain.AllTime, domain.BoardTopN)}
	hook := &redistest.CountingHook{}
	rdb.AddHook(hook)
	clientsOf := func(snaps map[string]any) string {
		view, _ := snaps[topics[0]].(domain.LimiterView)
		var got []string
		for _, c := range view.Clients {
			got = append(got, fmt.Sprintf("%s:%d", c.Client, c.Used))
		}
		return strings.Join(got, " ")
	}
	// The first read learns the policy and the clients, and reads their state again at once:
	// the limiter shows in the same Read, one round trip later.
	snaps, err := s.Read(ctx, topics, live.Poll{})
	if err != nil || clientsOf(snaps) != "c-1:1" || hook.Pipelines != 2 || hook.Single != 0 {
		t.Fatalf("first read: %v %v (clients %q); %d pipelines, %d single calls, want c-1:1 in 2 pipelines", snaps, err, clientsOf(snaps), hook.Pipelines, hook.Single)
	}
	view := snaps[topics[0]].(domain.LimiterView)
	*hook = redistest.CountingHook{}
	again, err := s.Read(ctx, topics, live.Poll{})
	if err != nil || hook.Pipelines != 1 || hook.Single != 0 {
		t.Fatalf("second read: %v; %d pipelines, %d single calls, want 1 pipeline", err, hook.Pipelines, hook.Single)
	}
	if fmt.Sprint(again[topics[0]]) != fmt.Sprint(view) {
		t.Errorf("unchanged state gave a different snapshot")
	}
	// A new client (another service's first request, say) shows in the next Read, not the one
	// after: the read that learns it reads its state again at once.
	allow(t, l, "default", "c-2")
	l.Flush(ctx)
	*hook = redistest.CountingHook{}
	snaps, err = s.Read(ctx, topics, live.Poll{})
	if err != nil || clientsOf(snaps) != "c-1:1 c-2:1" || hook.Pipelines != 2 {
		t.Fatalf("read after a new client: %v, clients %q in %d pipelines, want c-1:1 c-2:1 in 2", err, clientsOf(snaps), hook.Pipelines)
	}
}

// The watcher's reader reads a chart's ring at most once per second of the clock, however
// often it ticks, and forgets charts no longer asked for.
func TestSnapshotsReadARingOncePerSecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.DB(t)
	clock := domain.NewManualClock(testNow.Add(11 * time.Second))
	svc := openTest(t, rdb, clock)
	ring := store.DefaultKeys.HistoryRing(domain.HistoryQueue, "mail", domain.HistoryHour)
	var gets int
	rdb.AddHook(redistest.HookAfter(func(cmd redis.Cmder) {
		if cmd.Name() == "get" && len(cmd.Args()) == 2 && cmd.Args()[1] == ring {
			gets++
		}
	}))
	topic := domain.HistoryTopic(domain.HistoryQueue, "mail", domain.HistoryHour)
	read := func() domain.History {
		t.Helper()
		snaps, err := svc.Snapshots.Read(ctx, []string{topic}, live.Poll{})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := snaps[topic].(domain.History)
		return h
	}
	first := read()
	clock.Advance(900 * time.Millisecond)
	if again := read(); gets != 1 || !reflect.DeepEqual(first, again) {
		t.Errorf("two reads within a second: %d GETs of the ring, want 1 and the same snapshot", gets)
	}
	clock.Advance(100 * time.Millisecond)
	read()
	if gets != 2 {
		t.Errorf("a read in the next second: %d GETs, want 2", gets)
	}
	if _, err := svc.Snapshots.Read(ctx, nil, live.Poll{}); err != nil { // nobody asks for the chart any more
		t.Fatal(err)
	}
	read()
	if gets != 3 {
		t.Errorf("a chart asked for again after it was forgotten: %d GETs, want 3", gets)
	}
}
