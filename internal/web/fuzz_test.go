package web

import (
	"context"
	"testing"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/redistest"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// FuzzEntriesCursor: a forged or damaged entries cursor is a 400 (or a page), never a 500,
// through the whole read on a real Redis (the decoder, then the page script).
func FuzzEntriesCursor(f *testing.F) {
	for _, seed := range [][2]string{{"1", "p"}, {"NaN", "p"}, {"+Inf", "p"}, {"-Inf", "z"}, {"0x1p-2", "p"},
		{"1e400", "p"}, {" 1", "p"}, {"1", ""}, {"2.5", "\x00"}, {"-0", "q"}, {"5e-324", "p"}} {
		f.Add(seed[0], seed[1], forgedCursor(seed[0], seed[1]))
	}
	f.Add("", "", "garbage")
	rdb := redistest.DB(f)
	svc := openRepo(f, rdb)
	ctx := context.Background()
	rdb.ZAdd(ctx, "leaderboard:b", redisZ(1, "p"), redisZ(2, "q"), redisZ(2, "r"), redisZ(-3, "s"))
	f.Fuzz(func(t *testing.T, score, member, raw string) {
		for _, cursor := range []string{forgedCursor(score, member), raw} {
			if _, err := svc.Leaderboards.Entries(ctx, "b", domain.AllTime, cursor, 2); err != nil {
				checkClientError(t, err)
			}
		}
	})
}

// checkClientError fails unless err is nil or answers with a 4xx status.
func checkClientError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if status, code, _ := httpio.DescribeError(err); status < 400 || status > 499 {
		t.Fatalf("%d %s: %v", status, code, err)
	}
}
