package web

import (
	"context"
	"fmt"
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

func (s *server) settingsAction(ctx context.Context, board string, f views.Form) (string, string, error) {
	set := domain.BoardSettings{TieBreak: domain.TieBreak(f.Value("tie_break"))}
	if v := f.Value("periods"); v != "" {
		for _, p := range strings.Split(v, ",") {
			set.Periods = append(set.Periods, domain.Period(p))
		}
	}
	days, err := httpio.RetentionInput.Parse(f.Value("retention_days"))
	if !noteError(f.Errors, err) {
		return "", "", nil
	}
	set.RetentionDays = int(days)
	_, err = s.Leaderboards.UpdateSettings(ctx, board, set)
	return "Settings saved.", "", err
}
