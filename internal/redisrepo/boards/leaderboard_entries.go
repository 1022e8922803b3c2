package boards

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/zpulse/zpulse/internal/domain"
)

// cursor is the last entry of a page: its exact score (as Redis wrote it) and member.
type cursor struct {
	Score  string `json:"s"`
	Member string `json:"m"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		// As strictly as the API's body decoder: one object of these two members, each named
		// once, in valid UTF-8 (json v2's defaults, and unknown members refused).
		err = jsonv2.Unmarshal(b, &c, jsonv2.RejectUnknownMembers(true))
	}
	// The score must be one Page wrote: a number printed as FormatFloat prints it. Anything
	// else (NaN, hex floats, "1e400", spaces) was forged or damaged, and the page script
	// would fail on it.
	if err == nil {
		var f float64
		if f, err = strconv.ParseFloat(c.Score, 64); err == nil && (math.IsNaN(f) || strconv.FormatFloat(f, 'g', -1, 64) != c.Score) {
			err = errors.New("not a score this API wrote")
		}
	}
	if err != nil || domain.ValidateMember("player", c.Member) != nil {
		return cursor{}, domain.Errorf(domain.EINVALID, "cursor must be a next_cursor this API returned")
	}
	return c, nil
}

func (l *Leaderboards) Entries(ctx context.Context, board string, period domain.Period, after string, limit int) (domain.Page, error) {
	if err := domain.ValidateKeyName("board", board); err != nil {
		return domain.Page{}, err
	}
	if err := domain.ValidateRange("limit", limit, domain.MaxPageLimit); err != nil {
		return domain.Page{}, err
	}
	if after != "" {
		if _, err := decodeCursor(after); err != nil {
			return domain.Page{}, err
		}
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.Page{}, err
	}
	return PageOfKey(ctx, l.rdb, l.keys.PeriodBoard(board, period, l.clock.Now()), set.Ranking(), after, limit)
}

func (l *Leaderboards) EntriesAt(ctx context.Context, board string, period domain.Period, rank int64, limit int) (domain.Page, error) {
	if err := domain.ValidateName("board", board); err != nil {
		return domain.Page{}, err
	}
	if err := domain.ValidateRange("limit", limit, domain.MaxPageLimit); err != nil {
		return domain.Page{}, err
	}
	if err := validateRank(rank); err != nil {
		return domain.Page{}, err
	}
	set, err := l.boardSettings(ctx, board)
	if err != nil {
		return domain.Page{}, err
	}
	return PageAtOfKey(ctx, l.rdb, l.keys.PeriodBoard(board, period, l.clock.Now()), set.Ranking(), rank, limit)
}

// entriesPage builds a page from a {first rank, {member, score, ...}} reply of limit+1
// entries at most, on a board with encoding t: the extra one says another page follows.
func entriesPage(t domain.Scores, res any, total int64, limit int) (domain.Page, error) {
	entries, err := rankedEntries(t, res)
	if err != nil {
		return domain.Page{}, err
	}
	page := domain.Page{Entries: entries, Total: total}
	if len(entries) > limit {
		page.Entries = entries[:limit]
		last := entries[limit-1]
		next := cursor{Score: strconv.FormatFloat(last.Raw, 'g', -1, 64), Member: last.Player}.encode()
		page.NextCursor = &next
	}
	return page, nil
}
