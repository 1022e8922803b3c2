package web

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// boardsPage lists every board; with ?board=NAME (the "open a board" box) it goes to that board.
func (s *server) boardsPage(c echo.Context) error {
	if asked, err := openByName(c, "board", validName("board"), boardPath); asked {
		return err
	}
	boards, err := s.Leaderboards.Summaries(c.Request().Context())
	return s.render(c, http.StatusOK, views.BoardsPage(unavailable(s.chrome(c, "Leaderboards", domain.TopicBoards), err), boards, s.adoptedViews(c, domain.SourceBoard)))
}

// boardPeriodAndSize is the period and size a board page shows, from its query.
func boardPeriodAndSize(c echo.Context) (domain.Period, int, error) {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return "", 0, err
	}
	n, err := httpio.TopNInput.Query(c, domain.BoardTopN)
	if err == nil && !slices.Contains(domain.BoardTopNs, n) {
		err = domain.Errorf(domain.EINVALID, "n must be one of %v (got %d)", domain.BoardTopNs, n)
	}
	return period, n, err
}

func (s *server) boardPage(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	if err := domain.ValidateKeyName("board", board); err != nil {
		return err
	}
	return s.boardPageWith(c, http.StatusOK, board, map[string]views.Form{})
}

// boardPageWith renders a board's page with the given forms' states.
func (s *server) boardPageWith(c echo.Context, status int, board string, forms map[string]views.Form) error {
	ctx := c.Request().Context()
	period, n, err := boardPeriodAndSize(c)
	if err != nil {
		return err
	}
	settings, err := s.Leaderboards.Settings(ctx, board)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	if err != nil || !settings.Keeps(period) {
		settings, period = domain.DefaultBoardSettings(), domain.AllTime
	}
	top, err := s.Leaderboards.Top(ctx, board, period, n)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	top.Board, top.Period = board, period
	d := views.BoardPageData{Top: top, Period: period, N: n, Settings: settings, BigKey: s.BigKey, Forms: forms}
	if player := strings.TrimSpace(c.QueryParam("player")); player != "" {
		d.Lookup = s.lookupPlayer(ctx, board, period, player)
	}
	hist, topics, herr := s.pageHistory(c, domain.HistoryBoard, board)
	if herr != nil {
		return herr
	}
	if hist != nil { // the Players chart follows the period tab: that period's board's players
		h := hist.ForPeriod(period)
		hist = &h
		topics = []string{panels.History.Topic(panels.ChartParams{Kind: domain.HistoryBoard, Name: board, Range: h.Range, Period: period})}
	}
	d.History = hist
	if top.Players > 0 {
		if r, err := s.Leaderboards.CheckEncoding(ctx, board); err == nil {
			d.Encoding = &r
		}
	}
	ch := unavailable(s.chrome(c, board, append([]string{panels.Board.Topic(panels.BoardParams{Board: board, Period: period, N: n})}, topics...)...), err)
	return s.render(c, status, views.BoardPage(ch, d))
}

// lookupAround is how many players the lookup shows above and below the one found.
const lookupAround = 3

// lookupPlayer finds a player's place and neighbours; an absent player is "not ranked", not an error.
func (s *server) lookupPlayer(ctx context.Context, board string, period domain.Period, player string) *views.Lookup {
	around, err := s.Leaderboards.Around(ctx, board, period, player, lookupAround)
	l := lookupOf(player, around, err)
	if h, err := s.Leaderboards.PlayerHistory(ctx, board, player, domain.HistoryOptions{Limit: lookupHistory}); err == nil {
		l.History = &h
	}
	return l
}

// lookupHistory is how many of a player's latest score changes the lookup shows.
const lookupHistory = 10

// lookupOf is the lookup of a player from the read of the players around them.
func lookupOf(player string, around []domain.Entry, err error) *views.Lookup {
	l := &views.Lookup{Player: player}
	switch domain.ErrorCode(err) {
	case "":
		l.Around = around
		for i := range around {
			if around[i].Player == player {
				l.Entry = &around[i]
			}
		}
	case domain.ENOTFOUND:
	default:
		l.Err = domain.ErrorMessage(err)
	}
	return l
}

// entriesPage browses a board in rank order, a page at a time.
func (s *server) entriesPage(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	page, cursor, err := pageAtOrAfter(c, func(rank int64) (domain.Page, error) {
		return s.Leaderboards.EntriesAt(ctx, board, period, rank, entriesPerPage)
	}, func(cursor string) (domain.Page, error) {
		return s.Leaderboards.Entries(ctx, board, period, cursor, entriesPerPage)
	})
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	return s.render(c, http.StatusOK, views.EntriesPage(unavailable(s.chrome(c, board), err), board, period, page, cursor))
}

// pageAtOrAfter is the page an entries page asks for: with ?rank= the one at that rank (a
// jump, or a previous page: cursor "rank"), otherwise the one after ?cursor= ("" the first).
func pageAtOrAfter(c echo.Context, at func(rank int64) (domain.Page, error), after func(cursor string) (domain.Page, error)) (domain.Page, string, error) {
	if v := c.QueryParam("rank"); v != "" {
		rank, err := httpio.RankInput.Parse(v)
		if err != nil {
			return domain.Page{}, "", err
		}
		page, err := at(rank)
		return page, "rank", err
	}
	cursor := c.QueryParam("cursor")
	page, err := after(cursor)
	return page, cursor, err
}

// entriesPerPage is the size of a page when browsing a board.
const entriesPerPage = 50
