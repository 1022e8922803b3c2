package boards

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redisrepo/store"
	"github.com/zpulse/zpulse/internal/redistest"
)

// pauseAfterScan is a go-redis hook that, after each ZSCAN of one of keys (a step of the
// encoding rewrite, read before that step's scores are rewritten), holds the caller until
// writers have acknowledged burst more writes: so the writers certainly write members the
// rewrite has read but not yet rewritten, on every key, whatever the machine's speed.
type pauseAfterScan struct {
	keys  map[string]bool
	burst int64
	acked *atomic.Int64
	more  chan struct{} // a write was acknowledged
	stop  <-chan struct{}
}

func (p *pauseAfterScan) DialHook(next redis.DialHook) redis.DialHook { return next }
func (p *pauseAfterScan) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (p *pauseAfterScan) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if args := cmd.Args(); cmd.Name() == "zscan" && len(args) > 1 && p.keys[fmt.Sprint(args[1])] {
			until := p.acked.Load() + p.burst
			for p.acked.Load() < until {
				select {
				case <-p.more:
				case <-p.stop:
					return err
				}
			}
		}
		return err
	}
}

// ack counts an acknowledged write and wakes the paused rewrite.
func (p *pauseAfterScan) ack() {
	p.acked.Add(1)
	select {
	case p.more <- struct{}{}:
	default:
	}
}

// Four writers (adds from two instances, a batch writer, a writer of set scores) race an
// encoding rewrite between every ordered pair of the four encodings, on the all-time board
// and a daily board: every acknowledged point is found afterwards, for every player, and the
// check then says every score fits the new encoding.
func TestFixEncodingRacingWritersKeepsEveryPoint(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		for _, from := range domain.TieBreaks {
			for _, to := range domain.TieBreaks {
				if from != to {
					raceFixEncoding(t, rdb, from, to)
				}
			}
		}
	})
}

func raceFixEncoding(t *testing.T, rdb redis.UniversalClient, from, to domain.TieBreak) {
	t.Helper()
	ctx := context.Background()
	const players, setters, burst = 300, 20, 150
	board := fmt.Sprintf("fix-%s-%s-%d", from, to, rand.Uint32())
	clock := domain.NewManualClock(testNow)
	lb := openBoards(rdb, clock)
	other := openBoards(rdb, clock) // another instance, whose settings are cached before the fix
	if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{TieBreak: &from, Periods: &[]domain.Period{domain.Daily}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	want, wantDaily := seedFixBoard(t, lb, board, players, setters)
	if _, err := other.Settings(ctx, board); err != nil { // cached: the old encoding
		t.Fatal(err)
	}
	clock.Advance(3 * time.Second)

	stop, quit := make(chan struct{}), make(chan struct{})
	pause := &pauseAfterScan{keys: map[string]bool{store.DefaultKeys.Leaderboard(board): true,
		store.DefaultKeys.PeriodBoard(board, domain.Daily, clock.Now()): true},
		burst: burst, acked: new(atomic.Int64), more: make(chan struct{}, 1), stop: quit}
	rdb.AddHook(pause)
	defer func() { pause.keys = nil }() // the hook stays on the shared client: make it inert
	var wg sync.WaitGroup
	var failed atomic.Bool
	fail := func(err error) {
		if failed.CompareAndSwap(false, true) {
			t.Error(err)
			close(quit)
		}
	}
	add := func(p string, n int64) {
		mu.Lock()
		want[p] += n
		wantDaily[p] += n
		mu.Unlock()
		pause.ack()
	}
	running := func() bool {
		select {
		case <-stop:
			return false
		default:
			return !failed.Load()
		}
	}
	for w, inst := range []*Leaderboards{lb, other} {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for running() {
				p, n := fmt.Sprintf("p%03d", r.IntN(players)), int64(1+r.IntN(3))
				if _, err := inst.AddPoints(ctx, board, p, n); err != nil {
					fail(fmt.Errorf("add %s %d: %w", p, n, err))
					return
				}
				add(p, n)
			}
		})
	}
	wg.Go(func() { // batches of 5 distinct players
		r := rand.New(rand.NewPCG(2, 1))
		for running() {
			first := r.IntN(players - 5)
			batch := make([]domain.ScoreAdd, 5)
			for i := range batch {
				batch[i] = domain.ScoreAdd{Player: fmt.Sprintf("p%03d", first+i), Points: int64(1 + r.IntN(3))}
			}
			res, err := other.AddPointsBatch(ctx, board, batch)
			if err != nil {
				fail(fmt.Errorf("batch: %w", err))
				return
			}
			for i, x := range res {
				if x.Err != nil {
					fail(fmt.Errorf("batch %s: %w", batch[i].Player, x.Err))
					return
				}
				add(batch[i].Player, batch[i].Points)
			}
		}
	})
	wg.Go(func() { // set scores of players nobody else writes
		r := rand.New(rand.NewPCG(3, 1))
		for running() {
			p, n := fmt.Sprintf("s%02d", r.IntN(setters)), int64(r.IntN(1000))
			if _, err := lb.SetScore(ctx, board, p, n); err != nil {
				fail(fmt.Errorf("set %s %d: %w", p, n, err))
				return
			}
			mu.Lock()
			want[p] = n
			mu.Unlock()
			pause.ack()
		}
	})
	fix, err := lb.FixEncoding(ctx, board, to)
	// Writers go on after the fix: the first writes of the new encoding everywhere.
	until := pause.acked.Load() + burst
	for pause.acked.Load() < until && !failed.Load() {
		select {
		case <-pause.more:
		case <-quit:
		}
	}
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("%s → %s: %v", from, to, err)
	}
	if failed.Load() {
		t.FailNow()
	}

	checkPointsAfterFix(t, openBoards(rdb, clock), board, from, to, fix, want, wantDaily)
}

// seedFixBoard gives a board players p000… (added, so also on the daily board) and s00… (set
// to 7 on the all-time board), and returns what each holds: all time, and daily.
func seedFixBoard(t *testing.T, lb *Leaderboards, board string, players, setters int) (want, wantDaily map[string]int64) {
	t.Helper()
	ctx := context.Background()
	want, wantDaily = map[string]int64{}, map[string]int64{}
	seed := make([]domain.ScoreAdd, players)
	for i := range seed {
		seed[i] = domain.ScoreAdd{Player: fmt.Sprintf("p%03d", i), Points: int64(1 + i%50)}
		want[seed[i].Player], wantDaily[seed[i].Player] = seed[i].Points, seed[i].Points
	}
	res, err := lb.AddPointsBatch(ctx, board, seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	for i := range setters {
		p := fmt.Sprintf("s%02d", i)
		if _, err := lb.SetScore(ctx, board, p, 7); err != nil {
			t.Fatal(err)
		}
		want[p] = 7
	}
	return want, wantDaily
}

// checkPointsAfterFix reads every player's points through reader (an instance that cached
// nothing) on the all-time and the daily board, and the encoding check afterwards.
func checkPointsAfterFix(t *testing.T, reader *Leaderboards, board string, from, to domain.TieBreak, fix domain.EncodingFix, want, wantDaily map[string]int64) {
	t.Helper()
	ctx := context.Background()
	var wrong []string
	for p, n := range want {
		e, err := reader.Player(ctx, board, domain.AllTime, p)
		if err != nil || e.Score != n {
			wrong = append(wrong, fmt.Sprintf("%s: %d, want %d (%v)", p, e.Score, n, err))
		}
	}
	for p, n := range wantDaily {
		e, err := reader.Player(ctx, board, domain.Daily, p)
		if err != nil || e.Score != n {
			wrong = append(wrong, fmt.Sprintf("%s daily: %d, want %d (%v)", p, e.Score, n, err))
		}
	}
	if len(wrong) > 0 {
		t.Errorf("%s → %s (fix %+v): %d of %d players' points are wrong, e.g. %v", from, to, fix, len(wrong), len(want)+len(wantDaily), wrong[:min(len(wrong), 5)])
	}
	r, err := reader.CheckEncoding(ctx, board)
	if err != nil || r.TieBreak != to || r.Misfits != 0 {
		t.Errorf("%s → %s: the check afterwards: %+v, %v", from, to, r, err)
	}
}
