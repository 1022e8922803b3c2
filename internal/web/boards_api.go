package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

func (s *server) apiBoards(c echo.Context) error {
	boards, err := s.Leaderboards.Summaries(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"boards": boards})
}

type addPointsRequest struct {
	Player *string         `json:"player"`
	Points json.RawMessage `json:"points"`
}

// scoreAdd reads an add, alone or in a batch. Returns EINVALID.
func (r addPointsRequest) scoreAdd() (domain.ScoreAdd, error) {
	if r.Player == nil {
		return domain.ScoreAdd{}, domain.Errorf(domain.EINVALID, "player is required: 1 to %d bytes of printable UTF-8", domain.MaxMemberBytes)
	}
	points, err := pointsInput.json(r.Points)
	return domain.ScoreAdd{Player: *r.Player, Points: points}, err
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
	add, err := req.scoreAdd()
	if err != nil {
		return err
	}
	entry, err := s.Leaderboards.AddPoints(c.Request().Context(), board, add.Player, add.Points)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

func (s *server) apiSetScore(c echo.Context) error {
	var req struct {
		Score json.RawMessage `json:"score"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	score, err := scoreInput.json(req.Score)
	if err != nil {
		return err
	}
	entry, err := s.Leaderboards.SetScore(c.Request().Context(), pathParam(c, "board"), pathParam(c, "player"), score)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

func (s *server) apiRemovePlayer(c echo.Context) error {
	if err := s.Leaderboards.RemovePlayer(c.Request().Context(), pathParam(c, "board"), pathParam(c, "player")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// maxTrimKeep is the most players a trim can be asked to keep.
const maxTrimKeep = 1_000_000_000

func (s *server) apiTrim(c echo.Context) error {
	var req struct {
		Keep json.RawMessage `json:"keep"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	keep, err := keepInput.json(req.Keep)
	if err != nil {
		return err
	}
	removed, err := s.Leaderboards.Trim(c.Request().Context(), pathParam(c, "board"), keep)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int64{"removed": removed})
}

func (s *server) apiReset(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	var n int64
	if period != domain.AllTime { // that period's current board only
		n, err = s.Leaderboards.ResetPeriod(c.Request().Context(), pathParam(c, "board"), period)
	} else {
		n, err = s.Leaderboards.Reset(c.Request().Context(), pathParam(c, "board"))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int64{"deleted_keys": n})
}

func (s *server) apiSettings(c echo.Context) error {
	set, err := s.Leaderboards.Settings(c.Request().Context(), pathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, set)
}

// apiPutSettings saves a board's settings. Fields left out keep their current values.
func (s *server) apiPutSettings(c echo.Context) error {
	ctx, board := c.Request().Context(), pathParam(c, "board")
	var req struct {
		TieBreak      *domain.TieBreak `json:"tie_break"`
		Periods       *[]domain.Period `json:"periods"`
		RetentionDays json.RawMessage  `json:"retention_days"`
		KeepSeasons   json.RawMessage  `json:"keep_seasons"`
		SeasonEvery   *domain.Period   `json:"season_every"`
		SeasonZone    *string          `json:"season_zone"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	patch := domain.BoardSettingsPatch{TieBreak: req.TieBreak, Periods: req.Periods, SeasonEvery: req.SeasonEvery, SeasonZone: req.SeasonZone}
	if len(req.KeepSeasons) > 0 {
		keep, err := keepSeasonsInput.json(req.KeepSeasons)
		if err != nil {
			return err
		}
		patch.KeepSeasons = new(int(keep))
	}
	if len(req.RetentionDays) > 0 {
		days, err := retentionInput.json(req.RetentionDays)
		if err != nil {
			return err
		}
		patch.RetentionDays = new(int(days))
	}
	set, err := s.Leaderboards.PatchSettings(ctx, board, patch)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, set)
}

func (s *server) apiTop(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	n, err := topNInput.query(c, domain.BoardTopN)
	if err != nil {
		return err
	}
	top, err := s.Leaderboards.Top(c.Request().Context(), pathParam(c, "board"), period, n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, top)
}

func (s *server) apiPlayer(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	entry, err := s.Leaderboards.Player(c.Request().Context(), pathParam(c, "board"), period, pathParam(c, "player"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

func (s *server) apiAround(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	n, err := aroundNInput.query(c, 5)
	if err != nil {
		return err
	}
	entries, err := s.Leaderboards.Around(c.Request().Context(), pathParam(c, "board"), period, pathParam(c, "player"), n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

func (s *server) apiEntries(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	limit, err := entriesInput.query(c, 100)
	if err != nil {
		return err
	}
	page, err := s.Leaderboards.Entries(c.Request().Context(), pathParam(c, "board"), period, c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}
