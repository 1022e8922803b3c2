package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
	"github.com/zpulse/zpulse/views"
)

// The pages of a board's seasons, and the confirmation steps of a board's destructive actions
// that have no form of their own (end a season, reset one period, fix the encoding): plain GET
// pages whose button posts, so no JavaScript is needed and each says what it will do first.

// seasonsLive is how many of the current season's leaders the seasons page shows.
const seasonsLive = 5

func (s *server) seasonsPage(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	if err := domain.ValidateKeyName("board", board); err != nil {
		return err
	}
	return s.seasonsPageWith(c, http.StatusOK, board, map[string]views.Form{"seasons": views.NewForm()})
}

func (s *server) seasonsPageWith(c echo.Context, status int, board string, forms map[string]views.Form) error {
	ctx := c.Request().Context()
	list, err := s.Leaderboards.Seasons(ctx, board)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	settings, _ := s.Leaderboards.Settings(ctx, board)
	live, _ := s.Leaderboards.Top(ctx, board, domain.AllTime, seasonsLive)
	if list.Board == "" {
		list = domain.SeasonList{Board: board, Current: 1}
	}
	f, ok := forms["seasons"]
	if !ok {
		f = views.NewForm()
	}
	d := views.SeasonsPageData{Board: board, List: list, Live: live, Settings: settings, Form: f}
	return s.render(c, status, views.SeasonsPage(unavailable(s.chrome(c, board+" seasons"), err), d))
}

func (s *server) seasonPage(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	n, err := httpio.SeasonParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cursor := c.QueryParam("cursor")
	page, err := s.Leaderboards.SeasonEntries(ctx, board, n, cursor, entriesPerPage)
	if err != nil {
		return err
	}
	season, _, err := s.Leaderboards.SeasonTop(ctx, board, n, 1)
	if err != nil {
		return err
	}
	d := views.SeasonPageData{Board: board, Season: season, Page: page, Cursor: cursor}
	if player := strings.TrimSpace(c.QueryParam("player")); player != "" {
		d.Lookup = &views.Lookup{Player: player}
		e, err := s.Leaderboards.SeasonPlayer(ctx, board, n, player)
		switch domain.ErrorCode(err) {
		case "":
			d.Lookup.Entry = &e
		case domain.ENOTFOUND:
		default:
			d.Lookup.Err = domain.ErrorMessage(err)
		}
	}
	return s.render(c, http.StatusOK, views.SeasonPage(s.chrome(c, fmt.Sprintf("%s season %d", board, n)), d))
}

// seasonSettingsForm saves a board's season settings from the seasons page.
func (s *server) seasonSettingsForm() echo.HandlerFunc {
	return s.handleForm(pageForms{
		param:     "board",
		wholePage: []string{"seasons"},
		back:      func(_ echo.Context, board string) string { return boardPath(board) + "/seasons" },
		page: func(c echo.Context, status int, board string, forms map[string]views.Form) error {
			return s.seasonsPageWith(c, status, board, forms)
		},
		section: func(c echo.Context, status int, board, _ string, f views.Form) error {
			settings, _ := s.Leaderboards.Settings(c.Request().Context(), board)
			return s.render(c, status, views.SeasonSettingsForm(s.chrome(c, board), board, f, settings))
		},
	}, "seasons", []string{"keep_seasons", "season_every", "season_zone"}, s.seasonSettingsAction)
}

func (s *server) seasonSettingsAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	keep, err := httpio.KeepSeasonsInput.Parse(f.Value("keep_seasons"))
	if !noteError(f.Errors, err) {
		return "", "", nil
	}
	every, zone := domain.Period(f.Value("season_every")), f.Value("season_zone")
	_, err = s.Leaderboards.PatchSettings(ctx, board, domain.BoardSettingsPatch{KeepSeasons: new(int(keep)), SeasonEvery: &every, SeasonZone: &zone})
	return "Season settings saved.", "", err
}

func (s *server) confirmEndSeason(c echo.Context) (views.ConfirmData, error) {
	board := httpio.PathParam(c, "board")
	list, err := s.Leaderboards.Seasons(c.Request().Context(), board)
	if err != nil {
		return views.ConfirmData{}, err
	}
	settings, _ := s.Leaderboards.Settings(c.Request().Context(), board)
	what := []string{
		fmt.Sprintf("This ends season %d of board %s: the board as it stands is kept as season %d (readable and exportable on the seasons page) and the board starts empty.", list.Current, board, list.Current),
		"Points added from then on count for season " + fmt.Sprint(list.Current+1) + ". Period boards and settings stay.",
	}
	if settings.KeepSeasons > 0 && int64(len(list.Seasons)) >= int64(settings.KeepSeasons) {
		what = append(what, fmt.Sprintf("The board keeps the last %d seasons: the oldest kept one is deleted.", settings.KeepSeasons))
	}
	return views.ConfirmData{Title: "End the season", What: what, Action: boardPath(board) + "/seasons/end", Button: fmt.Sprintf("End season %d", list.Current),
		Cancel: boardPath(board) + "/seasons", TestID: "confirm-end-season"}, nil
}

func (s *server) endSeasonPost(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	season, err := s.Leaderboards.EndSeason(c.Request().Context(), board)
	if err != nil {
		return err
	}
	setFlash(c, "season", fmt.Sprintf("Season %d ended with %s %s. Season %d has begun.", season.Number, views.FormatCount(season.Players), views.Plural(season.Players, "player", "players"), season.Number+1))
	return seeOther(c, boardPath(board)+"/seasons")
}

func (s *server) confirmResetPeriod(c echo.Context) (views.ConfirmData, error) {
	board := httpio.PathParam(c, "board")
	period, err := domain.ParseOnePeriod(httpio.PathParam(c, "period"))
	if err != nil {
		return views.ConfirmData{}, err
	}
	back := boardPath(board) + "?" + url.Values{"period": {string(period)}}.Encode()
	return views.ConfirmData{Title: "Reset " + strings.ToLower(period.Label()) + "'s board",
		What: []string{
			fmt.Sprintf("This deletes every player of board %s's %s board (%s).", board, string(period), strings.ToLower(period.Label())),
			"The all-time board, the other periods and earlier " + string(period) + " boards stay. It cannot be undone.",
		},
		Action: boardPath(board) + "/periods/" + string(period) + "/reset", Button: "Reset " + strings.ToLower(period.Label()),
		Cancel: back, TestID: "confirm-reset-period"}, nil
}

func (s *server) resetPeriodPost(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	period, err := domain.ParseOnePeriod(httpio.PathParam(c, "period"))
	if err != nil {
		return err
	}
	n, err := s.Leaderboards.ResetPeriod(c.Request().Context(), board, period)
	if err != nil {
		return err
	}
	setFlash(c, "reset", fmt.Sprintf("%s's board reset: %s %s deleted.", period.Label(), views.FormatCount(n), views.Plural(n, "key", "keys")))
	return seeOther(c, boardPath(board)+"?"+url.Values{"period": {string(period)}}.Encode())
}

func (s *server) confirmFixEncoding(c echo.Context) (views.ConfirmData, error) {
	board := httpio.PathParam(c, "board")
	to := domain.TieBreak(c.QueryParam("tie_break"))
	if !to.Valid() {
		set := domain.BoardSettings{TieBreak: to}
		return views.ConfirmData{}, set.Validate()
	}
	r, err := s.Leaderboards.CheckEncoding(c.Request().Context(), board)
	if err != nil {
		return views.ConfirmData{}, err
	}
	return views.ConfirmData{Title: "Fix the board's encoding",
		What: []string{
			fmt.Sprintf("Of the top %d scores of board %s, %d %s not fit its setting %s.", r.Checked, board, r.Misfits, views.Plural(int64(r.Misfits), "does", "do"), r.TieBreak),
			fmt.Sprintf("This saves %s as the board's encoding and rewrites every score that does not fit it (the all-time board and the current period boards) in it: the same points, the same time (a plain score takes the time of the fix).", to),
			"It works in batches of 500 per script; a player written meanwhile keeps that write.",
		},
		Action: boardPath(board) + "/encoding", Button: "Use " + string(to) + " and rewrite", Cancel: boardPath(board),
		TestID: "confirm-fix-encoding", Hidden: [][2]string{{"tie_break", string(to)}}, Keeps: true}, nil
}

func (s *server) fixEncodingPost(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	fix, err := s.Leaderboards.FixEncoding(c.Request().Context(), board, domain.TieBreak(c.FormValue("tie_break")))
	if err != nil {
		return err
	}
	setFlash(c, "settings", fmt.Sprintf("Encoding %s saved: %s %s rewritten, %s written meanwhile and left, %s fitting no encoding left.", fix.TieBreak,
		views.FormatCount(fix.Rewritten), views.Plural(fix.Rewritten, "score", "scores"), views.FormatCount(fix.Changed), views.FormatCount(fix.Left)))
	return seeOther(c, boardPath(board))
}
