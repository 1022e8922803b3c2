package boards

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
)

// orderModel is what a board of an order and operator should hold after a sequence of
// writes: each player's points and when they were reached.
type orderModel struct {
	order  domain.SortOrder
	op     domain.Operator
	points map[string]int64
	at     map[string]time.Time
}

func (m *orderModel) write(player string, n int64, now time.Time) {
	old, had := m.points[player]
	switch {
	case m.op == domain.OperatorIncr:
		m.points[player], m.at[player] = old+n, now
	case !had, m.op == domain.OperatorBest && m.order.Better(n, old), m.op == domain.OperatorSet && n != old:
		m.points[player], m.at[player] = n, now
	}
}

// ranked is the model's players in rank order on a board with encoding t.
func (m *orderModel) ranked(t domain.TieBreak) []string {
	var out []string
	for p := range m.points {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b string) int {
		if pa, pb := m.points[a], m.points[b]; pa != pb {
			if m.order.Better(pa, pb) {
				return -1
			}
			return 1
		}
		if t.Timed() && !m.at[a].Equal(m.at[b]) {
			return m.at[a].Compare(m.at[b]) // the first to reach the points first
		}
		if m.order.Ascending() { // as Redis orders equal scores: ZRANGE by member, ZREVRANGE the other way
			return strings.Compare(a, b)
		}
		return strings.Compare(b, a)
	})
	return out
}

// The writes every order and operator test makes: ties on purpose (p3 and p4 reach 20, p5
// and p6 reach 5 in every operator), improvements and regressions.
var orderWrites = []struct {
	player string
	n      int64
}{
	{"p1", 10}, {"p2", 30}, {"p3", 20}, {"p1", 25}, {"p4", 20}, {"p2", 40}, {"p6", 5}, {"p5", 5},
	{"p3", 20}, {"p2", 35}, {"p7", 20},
}

// TestEveryOrderAndOperatorRanksEveryRead writes the same scores to boards of each order,
// operator and a plain or timed encoding (with a weekly board) on one server and the Cluster,
// and checks every read against the model: top, a player's rank, around, cursor pages of 1
// and 2 (ties included), a jump to a rank, the weekly board, and the ended season's winners.
func TestEveryOrderAndOperatorRanksEveryRead(t *testing.T) {
	t.Parallel()
	redistest.ForEachTopologyParallel(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		for _, order := range domain.SortOrders {
			for _, op := range domain.Operators {
				for _, tie := range []domain.TieBreak{domain.TieBreakNone, domain.TieBreakFirstReached, domain.TieBreakFirstReachedE10} {
					name := fmt.Sprintf("%s-%s-%s", order, op, tie)
					t.Run(name, func(t *testing.T) {
						lb, clock := newBoardsOn(t, rdb)
						board := "o-" + strings.ReplaceAll(name, "_", "")
						o, oper, periods := order, op, []domain.Period{domain.Weekly}
						if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{SortOrder: &o, Operator: &oper, TieBreak: &tie, Periods: &periods}); err != nil {
							t.Fatal(err)
						}
						m := &orderModel{order: order, op: op, points: map[string]int64{}, at: map[string]time.Time{}}
						for _, w := range orderWrites {
							clock.Advance(2 * time.Second) // a second apart at least: every encoding tells the times apart
							e, err := lb.AddPoints(ctx, board, w.player, w.n)
							if err != nil {
								t.Fatal(err)
							}
							m.write(w.player, w.n, clock.Now())
							if e.Score != m.points[w.player] {
								t.Fatalf("write %s %d answered %d points; want %d", w.player, w.n, e.Score, m.points[w.player])
							}
						}
						want := m.ranked(tie)
						checkRanking(t, lb, board, domain.AllTime, m, want)
						checkRanking(t, lb, board, domain.Weekly, m, want)

						if _, err := lb.EndSeason(ctx, board); err != nil {
							t.Fatal(err)
						}
						list, err := lb.Seasons(ctx, board)
						if err != nil || len(list.Seasons) != 1 {
							t.Fatalf("Seasons = %+v, %v", list, err)
						}
						if got := players(list.Seasons[0].Winners); fmt.Sprint(got) != fmt.Sprint(want[:len(got)]) || list.Seasons[0].SortOrder != order {
							t.Errorf("season winners %v (%s); want the first of %v (%s)", got, list.Seasons[0].SortOrder, want, order)
						}
						var paged []string
						for cur := ""; ; {
							page, err := lb.SeasonEntries(ctx, board, 1, cur, 3)
							if err != nil {
								t.Fatal(err)
							}
							paged = append(paged, players(page.Entries)...)
							if page.NextCursor == nil {
								break
							}
							cur = *page.NextCursor
						}
						if fmt.Sprint(paged) != fmt.Sprint(want) {
							t.Errorf("season pages %v; want %v", paged, want)
						}
						if e, err := lb.SeasonPlayer(ctx, board, 1, want[0]); err != nil || e.Rank != 1 {
							t.Errorf("season player %s = %+v, %v; want rank 1", want[0], e, err)
						}
					})
				}
			}
		}
	})
}

func checkRanking(t *testing.T, lb *Leaderboards, board string, period domain.Period, m *orderModel, want []string) {
	t.Helper()
	ctx := context.Background()
	top, err := lb.Top(ctx, board, period, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := players(top.Entries); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s top %v; want %v", period, got, want)
	}
	for i, e := range top.Entries {
		if e.Rank != int64(i+1) || e.Score != m.points[e.Player] {
			t.Errorf("%s top entry %+v; want rank %d and %d points", period, e, i+1, m.points[e.Player])
		}
	}
	for _, limit := range []int{1, 2} {
		var paged []string
		for cur := ""; ; {
			page, err := lb.Entries(ctx, board, period, cur, limit)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, players(page.Entries)...)
			if page.NextCursor == nil {
				break
			}
			cur = *page.NextCursor
		}
		if fmt.Sprint(paged) != fmt.Sprint(want) {
			t.Errorf("%s pages of %d: %v; want %v", period, limit, paged, want)
		}
	}
	at, err := lb.EntriesAt(ctx, board, period, 3, 2)
	if err != nil || fmt.Sprint(players(at.Entries)) != fmt.Sprint(want[2:4]) || at.Entries[0].Rank != 3 {
		t.Errorf("%s entries at rank 3: %+v, %v; want %v", period, at.Entries, err, want[2:4])
	}
	for i, p := range want {
		e, err := lb.Player(ctx, board, period, p)
		if err != nil || e.Rank != int64(i+1) || e.Score != m.points[p] {
			t.Errorf("%s player %s = %+v, %v; want rank %d, %d points", period, p, e, err, i+1, m.points[p])
		}
		around, err := lb.Around(ctx, board, period, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := max(0, i-1), min(len(want), i+2)
		if fmt.Sprint(players(around)) != fmt.Sprint(want[lo:hi]) || around[0].Rank != int64(lo+1) {
			t.Errorf("%s around %s: %v from %d; want %v from %d", period, p, players(around), around[0].Rank, want[lo:hi], lo+1)
		}
	}
}

// TestConcurrentWritersOnOnePlayerStayExact races 8 writers on one player of a board of each
// order and operator, on a timed encoding: incr adds every write, best keeps the best ever
// submitted, set keeps one writer's last submission.
func TestConcurrentWritersOnOnePlayerStayExact(t *testing.T) {
	t.Parallel()
	const writers, each = 8, 40
	for _, order := range domain.SortOrders {
		for _, op := range domain.Operators {
			t.Run(fmt.Sprintf("%s-%s", order, op), func(t *testing.T) {
				t.Parallel()
				lb, _, _ := newBoards(t)
				ctx := context.Background()
				o, oper, tie := order, op, domain.TieBreakFirstReached
				if _, err := lb.PatchSettings(ctx, "race", domain.BoardSettingsPatch{SortOrder: &o, Operator: &oper, TieBreak: &tie}); err != nil {
					t.Fatal(err)
				}
				value := func(w, i int) int64 { return int64((w*7919+i*104729)%1000 + 1) } // scattered, 1..1000
				var wg sync.WaitGroup
				errs := make(chan error, writers)
				for w := range writers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range each {
							if _, err := lb.AddPoints(ctx, "race", "p", value(w, i)); err != nil {
								errs <- err
								return
							}
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
				e, err := lb.Player(ctx, "race", domain.AllTime, "p")
				if err != nil {
					t.Fatal(err)
				}
				var sum, best int64
				lasts := map[int64]bool{}
				for w := range writers {
					for i := range each {
						v := value(w, i)
						sum += v
						if best == 0 || order.Better(v, best) {
							best = v
						}
					}
					lasts[value(w, each-1)] = true
				}
				switch op {
				case domain.OperatorIncr:
					if e.Score != sum {
						t.Errorf("incr: %d points; want %d", e.Score, sum)
					}
				case domain.OperatorBest:
					if e.Score != best {
						t.Errorf("best: %d points; want %d", e.Score, best)
					}
				case domain.OperatorSet:
					if !lasts[e.Score] {
						t.Errorf("set: %d points; want one writer's last, of %v", e.Score, lasts)
					}
				}
			})
		}
	}
}

// TestAscendingTieBreakEncodingsRoundTrip holds the ascending scores the scripts write to
// domain.TieBreak.EncodeFor, and their times to TimeFor: the encoding check reads them.
func TestAscendingTieBreakEncodingsRoundTrip(t *testing.T) {
	t.Parallel()
	lb, rdb, clock := newBoards(t)
	ctx := context.Background()
	for _, tie := range []domain.TieBreak{domain.TieBreakFirstReached, domain.TieBreakFirstReachedE10, domain.TieBreakFirstReachedWide} {
		board := "asc-" + strings.ReplaceAll(string(tie), "_", "")
		asc := domain.SortAsc
		if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{SortOrder: &asc, TieBreak: &tie}); err != nil {
			t.Fatal(err)
		}
		if _, err := lb.AddPoints(ctx, board, "p", 1234); err != nil {
			t.Fatal(err)
		}
		raw, err := rdb.ZScore(ctx, "leaderboard:"+board, "p").Result()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tie.EncodeFor(domain.SortAsc, 1234, clock.Now())
		if raw != want {
			t.Errorf("%s: score %v; want %v", tie, raw, want)
		}
		if at, ok := tie.TimeFor(domain.SortAsc, raw, clock.Now()); !ok || at.Sub(clock.Now()).Abs() > time.Second {
			t.Errorf("%s: time %v, %v; want %v", tie, at, ok, clock.Now())
		}
		report, err := lb.CheckEncoding(ctx, board)
		if err != nil || report.Misfits != 0 {
			t.Errorf("%s: check %+v, %v; want no misfit", tie, report, err)
		}
	}
}

// TestTrimKeepsTheTopOfEitherOrder: trimming an ascending board keeps its lowest scores.
func TestTrimKeepsTheTopOfEitherOrder(t *testing.T) {
	t.Parallel()
	lb, _, _ := newBoards(t)
	ctx := context.Background()
	for _, order := range domain.SortOrders {
		board := "trim-" + string(order)
		o := order
		if _, err := lb.PatchSettings(ctx, board, domain.BoardSettingsPatch{SortOrder: &o}); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if _, err := lb.AddPoints(ctx, board, fmt.Sprintf("p%d", i), int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := lb.Trim(ctx, board, 2); err != nil || n != 3 {
			t.Fatalf("trim: %d, %v", n, err)
		}
		top, _ := lb.Top(ctx, board, domain.AllTime, 10)
		want := "[p4 p3]"
		if order.Ascending() {
			want = "[p0 p1]"
		}
		if got := fmt.Sprint(players(top.Entries)); got != want {
			t.Errorf("%s: kept %s; want %s", order, got, want)
		}
	}
}
