package web

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/panels"
	"github.com/zpulse/zpulse/views"
)

// boardsPage lists every board; with ?board=NAME (the "open a board" box) it goes to that board.
func (s *server) boardsPage(c echo.Context) error {
	if asked, err := openByName(c, "board", validName("board"), boardPath); asked {
		return err
	}
	boards, err := s.Leaderboards.Summaries(c.Request().Context())
	return s.render(c, http.StatusOK, views.BoardsPage(unavailable(s.chrome(c, "Leaderboards", domain.TopicBoards), err), boards))
}

// boardPeriodAndSize is the period and size a board page shows, from its query.
func boardPeriodAndSize(c echo.Context) (domain.Period, int, error) {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return "", 0, err
	}
	n, err := topNInput.query(c, domain.BoardTopN)
	if err == nil && !slices.Contains(domain.BoardTopNs, n) {
		err = domain.Errorf(domain.EINVALID, "n must be one of %v (got %d)", domain.BoardTopNs, n)
	}
	return period, n, err
}

func (s *server) boardPage(c echo.Context) error {
	board := pathParam(c, "board")
	if err := domain.ValidateKeyName("board", board); err != nil {
		return err
	}
	forms := map[string]views.Form{}
	if id, msg, ok := takeFlash(c); ok && slices.Contains(views.BoardFormIDs, id) {
		f := views.NewForm()
		f.Success = msg
		forms[id] = f
	}
	return s.boardPageWith(c, http.StatusOK, board, forms)
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
	d.History = hist
	ch := unavailable(s.chrome(c, board, append([]string{panels.Board.Topic(panels.BoardParams{Board: board, Period: period, N: n})}, topics...)...), err)
	return s.render(c, status, views.BoardPage(ch, d))
}

// lookupAround is how many players the lookup shows above and below the one found.
const lookupAround = 3

// lookupPlayer finds a player's place and neighbours; an absent player is "not ranked", not an error.
func (s *server) lookupPlayer(ctx context.Context, board string, period domain.Period, player string) *views.Lookup {
	l := &views.Lookup{Player: player}
	around, err := s.Leaderboards.Around(ctx, board, period, player, lookupAround)
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
	board := pathParam(c, "board")
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	cursor := c.QueryParam("cursor")
	var page domain.Page
	if v := c.QueryParam("rank"); v != "" { // a jump to a rank, or a previous page
		rank, perr := rankInput.parse(v)
		if perr != nil {
			return perr
		}
		page, err = s.Leaderboards.EntriesAt(c.Request().Context(), board, period, rank, entriesPerPage)
		cursor = "rank"
	} else {
		page, err = s.Leaderboards.Entries(c.Request().Context(), board, period, cursor, entriesPerPage)
	}
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	return s.render(c, http.StatusOK, views.EntriesPage(unavailable(s.chrome(c, board), err), board, period, page, cursor))
}

// entriesPerPage is the size of a page when browsing a board.
const entriesPerPage = 50
