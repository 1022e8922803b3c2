package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/views"
)

func (s *server) overviewPage(c echo.Context) error {
	boards, err := s.Leaderboards.Boards(c.Request().Context())
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	return s.render(c, http.StatusOK, views.OverviewPage(unavailable(s.chrome(c, "Overview"), err), boards))
}

// openBoard sends the overview's "open a board" form to the board's page.
func (s *server) openBoard(c echo.Context) error {
	board := strings.TrimSpace(c.QueryParam("board"))
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	return seeOther(c, "/boards/"+url.PathEscape(board))
}

func (s *server) boardPage(c echo.Context) error {
	board := pathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	form := views.AddPointsForm{}
	// After a plain form post the browser comes back with ?added=<player> to see the outcome.
	if added := c.QueryParam("added"); added != "" {
		if e, err := s.Leaderboards.Player(c.Request().Context(), board, added); err == nil {
			form.Added = &e
		}
	}
	return s.boardPageWith(c, http.StatusOK, board, form)
}

func (s *server) boardPageWith(c echo.Context, status int, board string, form views.AddPointsForm) error {
	top, err := s.Leaderboards.Top(c.Request().Context(), board, domain.BoardTopN)
	if err != nil && domain.ErrorCode(err) != domain.EUNAVAILABLE {
		return err
	}
	top.Board = board
	ch := unavailable(s.chrome(c, board, domain.BoardTopic(board)), err)
	return s.render(c, status, views.BoardPage(ch, top, form))
}

// addPointsForm handles the add-points form, with htmx (the answer is the form) or without
// JavaScript (the answer is a redirect to the page, or the page with the form's errors).
func (s *server) addPointsForm(c echo.Context) error {
	board := pathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	form := views.AddPointsForm{
		Player: strings.TrimSpace(c.FormValue("player")),
		Points: strings.TrimSpace(c.FormValue("points")),
		Errors: map[string]string{},
	}
	if err := domain.ValidateMember("player", form.Player); err != nil {
		form.Errors["player"] = domain.ErrorMessage(err)
	}
	points, err := domain.ParsePoints(form.Points)
	if err != nil {
		form.Errors["points"] = domain.ErrorMessage(err)
	}
	status := http.StatusBadRequest
	if len(form.Errors) == 0 {
		entry, err := s.Leaderboards.AddPoints(c.Request().Context(), board, form.Player, points)
		switch domain.ErrorCode(err) {
		case "":
			s.Watcher.Nudge()
			if !isHTMX(c) {
				return seeOther(c, "/boards/"+url.PathEscape(board)+"?"+url.Values{"added": {entry.Player}}.Encode())
			}
			form = views.AddPointsForm{Added: &entry}
			status = http.StatusOK
		case domain.EINVALID:
			form.Errors["points"] = domain.ErrorMessage(err)
		case domain.EUNAVAILABLE:
			form.Errors[""] = "Redis is unavailable, so nothing was added. Try again when the banner is gone."
			status = http.StatusServiceUnavailable
		default:
			return err
		}
	}
	if isHTMX(c) {
		return s.render(c, status, views.AddPointsFormView(s.chrome(c, board), board, form))
	}
	return s.boardPageWith(c, status, board, form)
}

type addPointsRequest struct {
	Player *string         `json:"player"`
	Points json.RawMessage `json:"points"`
}

func (s *server) apiAddPoints(c echo.Context) error {
	board := pathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	var req addPointsRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Player == nil {
		return domain.Errorf(domain.EINVALID, "player is required: 1 to %d bytes of printable UTF-8", domain.MaxMemberBytes)
	}
	points, err := jsonPoints(req.Points)
	if err != nil {
		return err
	}
	entry, err := s.Leaderboards.AddPoints(c.Request().Context(), board, *req.Player, points)
	if err != nil {
		return err
	}
	s.Watcher.Nudge()
	return c.JSON(http.StatusOK, entry)
}

func (s *server) apiTop(c echo.Context) error {
	board := pathParam(c, "board")
	n, err := queryInt(c, "n", domain.BoardTopN)
	if err != nil {
		return err
	}
	top, err := s.Leaderboards.Top(c.Request().Context(), board, n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, top)
}

func (s *server) apiPlayer(c echo.Context) error {
	entry, err := s.Leaderboards.Player(c.Request().Context(), pathParam(c, "board"), pathParam(c, "player"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}
