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

// boardForm handles one of a board page's forms (see handleForm).
func (s *server) boardForm(id string, fields []string, act formAction) echo.HandlerFunc {
	return s.handleForm(pageForms{
		param:     "board",
		wholePage: []string{"settings", "reset"},
		back:      func(c echo.Context, _ string) string { return backToBoard(c) },
		page:      s.boardPageWith,
		section: func(c echo.Context, status int, board, id string, f views.Form) error {
			settings, _ := s.Leaderboards.Settings(c.Request().Context(), board)
			return s.render(c, status, views.BoardForm(s.chrome(c, board), board, id, f, settings))
		},
	}, id, fields, act)
}

// backToBoard is the board page a form was posted from (its period and size kept), or the
// board's page.
func backToBoard(c echo.Context) string {
	own := boardPath(httpio.PathParam(c, "board"))
	return backWithin(c, own, own+"/entries")
}

// requirePlayer and the parsers below fill a form's field errors and report whether the
// field was fine.
func requirePlayer(f views.Form) (string, bool) {
	p := f.Value("player")
	if err := domain.ValidateMember("player", p); err != nil {
		f.Errors["player"] = domain.ErrorMessage(err)
		return "", false
	}
	return p, true
}

func confirmed(f views.Form) bool {
	if f.Value("confirm") != "yes" {
		f.Errors["confirm"] = "Tick the box to confirm: this cannot be undone."
		return false
	}
	return true
}

func (s *server) addPointsAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	player, okPlayer := requirePlayer(f)
	points, err := httpio.PointsInput.Parse(f.Value("points"))
	if !noteError(f.Errors, err) || !okPlayer {
		return "", "", nil
	}
	if v := f.Value("periods"); v != "" { // start the board's period boards with this add
		set, err := s.Leaderboards.Settings(ctx, board)
		if err != nil {
			return "", "", err
		}
		if len(set.Periods) == 0 {
			periods := []domain.Period{}
			for _, p := range strings.Split(v, ",") {
				periods = append(periods, domain.Period(p))
			}
			if _, err := s.Leaderboards.PatchSettings(ctx, board, domain.BoardSettingsPatch{Periods: &periods}); err != nil {
				return "", "periods", err
			}
		}
	}
	e, err := s.Leaderboards.AddPoints(ctx, board, player, points)
	return fmt.Sprintf("%s now has %s points, rank %s.", e.Player, views.FormatCount(e.Score), views.FormatCount(e.Rank)), "points", err
}

func (s *server) setScoreAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	player, okPlayer := requirePlayer(f)
	points, err := httpio.PointsInput.Parse(f.Value("points"))
	if !noteError(f.Errors, err) || !okPlayer {
		return "", "", nil
	}
	e, err := s.Leaderboards.SetScore(ctx, board, player, points)
	return fmt.Sprintf("%s's score is now %s, rank %s.", e.Player, views.FormatCount(e.Score), views.FormatCount(e.Rank)), "points", err
}

func (s *server) removeAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	player, ok := requirePlayer(f)
	if !confirmed(f) || !ok {
		return "", "", nil
	}
	return fmt.Sprintf("%s was removed.", player), "player", s.Leaderboards.RemovePlayer(ctx, board, player)
}

func (s *server) trimAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	keep, err := httpio.KeepInput.Parse(f.Value("keep"))
	noteError(f.Errors, err)
	if !confirmed(f) || !f.OK() {
		return "", "", nil
	}
	removed, err := s.Leaderboards.Trim(ctx, board, keep)
	return fmt.Sprintf("Kept the top %s; removed %s %s.", views.FormatCount(keep), views.FormatCount(removed), views.Plural(removed, "player", "players")), "keep", err
}

func (s *server) resetAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	if !confirmed(f) {
		return "", "", nil
	}
	n, err := s.Leaderboards.Reset(ctx, board)
	return fmt.Sprintf("Board reset: %s %s deleted.", views.FormatCount(n), views.Plural(n, "key", "keys")), "", err
}

// settingsFields are the settings form's fields (a confirmation page carries them over).
var settingsFields = []string{"tie_break", "periods", "retention_days", "sort_order", "operator", "confirm"}

// settingsPatch reads the settings form: a patch of what it holds (a form of before the order
// and operator, without them, keeps theirs).
func settingsPatch(f views.Form) (domain.BoardSettingsPatch, error) {
	tie := domain.TieBreak(f.Value("tie_break"))
	periods := []domain.Period{}
	if v := f.Value("periods"); v != "" {
		for _, p := range strings.Split(v, ",") {
			periods = append(periods, domain.Period(p))
		}
	}
	days, err := httpio.RetentionInput.Parse(f.Value("retention_days"))
	if err != nil {
		return domain.BoardSettingsPatch{}, err
	}
	patch := domain.BoardSettingsPatch{TieBreak: &tie, Periods: &periods, RetentionDays: new(int(days))}
	if v, ok := f.Values["sort_order"]; ok && v != "" {
		patch.SortOrder = new(domain.SortOrder(v))
	}
	if v, ok := f.Values["operator"]; ok && v != "" {
		patch.Operator = new(domain.Operator(v))
	}
	return patch, domain.ValidateRankingPatch(patch)
}

// rankingChange is what saving patch would change in the order or operator of a board that
// has entries, "" when nothing (or the board is empty).
func (s *server) rankingChange(ctx context.Context, board string, patch domain.BoardSettingsPatch) (string, error) {
	if patch.SortOrder == nil && patch.Operator == nil {
		return "", nil
	}
	set, err := s.Leaderboards.Settings(ctx, board)
	if err != nil {
		return "", err
	}
	if domain.RankingChange(set, patch.Apply(set), 0) == "" {
		return "", nil
	}
	top, err := s.Leaderboards.Top(ctx, board, domain.AllTime, 1)
	if err != nil || top.Players == 0 {
		return "", err
	}
	return domain.RankingChange(set, patch.Apply(set), top.Players), nil
}

// boardSettingsPost saves the settings form; a change of the order or operator of a board
// that has entries goes to its confirmation page first (confirmRankingChange), whose button
// posts the same fields with confirm=yes.
func (s *server) boardSettingsPost() echo.HandlerFunc {
	save := s.boardForm("settings", settingsFields, s.settingsAction)
	return func(c echo.Context) error {
		board := httpio.PathParam(c, "board")
		if c.FormValue("confirm") != "yes" && domain.ValidateName("board", board) == nil {
			f := views.NewForm()
			values, _ := c.FormParams()
			for _, field := range settingsFields {
				f.Values[field] = strings.TrimSpace(strings.Join(values[field], ","))
			}
			if patch, err := settingsPatch(f); err == nil {
				if what, err := s.rankingChange(c.Request().Context(), board, patch); err == nil && what != "" {
					q := url.Values{}
					for _, field := range settingsFields[:5] {
						q.Set(field, f.Values[field])
					}
					to := boardPath(board) + "/settings/confirm?" + q.Encode()
					if isHTMX(c) {
						c.Response().Header().Set("HX-Redirect", urlFor(c, to))
						return c.NoContent(http.StatusOK)
					}
					return seeOther(c, to)
				}
			}
		}
		return save(c)
	}
}

// confirmRankingChange is the confirmation page of a change of a board's order or operator.
func (s *server) confirmRankingChange(c echo.Context) (views.ConfirmData, error) {
	board := httpio.PathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return views.ConfirmData{}, err
	}
	f := views.NewForm()
	for _, field := range settingsFields[:5] {
		f.Values[field] = c.QueryParam(field)
	}
	patch, err := settingsPatch(f)
	if err != nil {
		return views.ConfirmData{}, err
	}
	what, err := s.rankingChange(c.Request().Context(), board, patch)
	if err != nil {
		return views.ConfirmData{}, err
	}
	d := views.ConfirmData{Title: "Change how board " + board + " ranks", Action: boardPath(board) + "/settings", Button: "Save settings",
		Cancel: boardPath(board), TestID: "confirm-ranking", Keeps: true}
	if what == "" {
		d.Refused = "Nothing to confirm: the order and what a new score does are as saved, or the board has no players. Save the settings from the board's page."
		return d, nil
	}
	set, _ := s.Leaderboards.Settings(c.Request().Context(), board)
	to := patch.Apply(set)
	d.What = []string{
		fmt.Sprintf("Board %s is now “%s”; it becomes “%s”.", board, domain.RankingText(set.Order(), set.Op()), domain.RankingText(to.Order(), to.Op())),
		"On its players: " + what + ".",
		"The period boards and ended seasons follow the same settings; seasons ended before keep the order they ended with.",
	}
	for _, field := range settingsFields[:5] {
		for _, v := range strings.Split(f.Values[field], ",") {
			if v != "" {
				d.Hidden = append(d.Hidden, [2]string{field, v})
			}
		}
	}
	d.Hidden = append(d.Hidden, [2]string{"confirm", "yes"})
	return d, nil
}

func (s *server) settingsAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	patch, err := settingsPatch(f)
	if !noteError(f.Errors, err) {
		return "", "", nil
	}
	if f.Value("confirm") != "yes" { // a change that needs confirming made meanwhile: ask again
		if what, err := s.rankingChange(ctx, board, patch); err != nil || what != "" {
			if err == nil {
				err = domain.FieldErrorf("sort_order", domain.ECONFLICT, "board %q has players: %s. Save again to confirm on the next page", board, what)
			}
			return "", "", err
		}
	}
	_, err = s.Leaderboards.PatchSettings(ctx, board, patch)
	return "Settings saved.", "", err
}
