package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

func (h *Handlers) ListBoards(c echo.Context) error {
	boards, err := h.Leaderboards.Summaries(c.Request().Context())
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
	points, err := httpio.PointsInput.JSON(r.Points)
	return domain.ScoreAdd{Player: *r.Player, Points: points}, err
}

func (h *Handlers) AddPoints(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	var req addPointsRequest
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	add, err := req.scoreAdd()
	if err != nil {
		return err
	}
	entry, err := h.Leaderboards.AddPoints(c.Request().Context(), board, add.Player, add.Points)
	if err != nil {
		return err
	}
	httpio.AuditDetail(c, "%+d points to %s (score %d)", add.Points, add.Player, entry.Score)
	return c.JSON(http.StatusOK, entry)
}

func (h *Handlers) SetScore(c echo.Context) error {
	var req struct {
		Score json.RawMessage `json:"score"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	score, err := httpio.ScoreInput.JSON(req.Score)
	if err != nil {
		return err
	}
	entry, err := h.Leaderboards.SetScore(c.Request().Context(), httpio.PathParam(c, "board"), httpio.PathParam(c, "player"), score)
	if err != nil {
		return err
	}
	httpio.AuditDetail(c, "%s's score set to %d", entry.Player, entry.Score)
	return c.JSON(http.StatusOK, entry)
}

func (h *Handlers) RemovePlayer(c echo.Context) error {
	if err := h.Leaderboards.RemovePlayer(c.Request().Context(), httpio.PathParam(c, "board"), httpio.PathParam(c, "player")); err != nil {
		return err
	}
	httpio.AuditDetail(c, "removed %s", httpio.PathParam(c, "player"))
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) Trim(c echo.Context) error {
	var req struct {
		Keep json.RawMessage `json:"keep"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	keep, err := httpio.KeepInput.JSON(req.Keep)
	if err != nil {
		return err
	}
	removed, err := h.Leaderboards.Trim(c.Request().Context(), httpio.PathParam(c, "board"), keep)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int64{"removed": removed})
}

// ResetBoard deletes the whole board only when the request has no period parameter at all;
// a period parameter, even empty or "all", must name one period, whose current board alone
// is deleted.
func (h *Handlers) ResetBoard(c echo.Context) error {
	var n int64
	var err error
	if q := c.QueryParams(); q.Has("period") {
		period, perr := domain.ParseOnePeriod(q.Get("period"))
		if perr != nil {
			return perr
		}
		n, err = h.Leaderboards.ResetPeriod(c.Request().Context(), httpio.PathParam(c, "board"), period)
	} else {
		n, err = h.Leaderboards.Reset(c.Request().Context(), httpio.PathParam(c, "board"))
	}
	if err != nil {
		return err
	}
	httpio.AuditDetail(c, "deleted %d keys", n)
	return c.JSON(http.StatusOK, map[string]int64{"deleted_keys": n})
}

func (h *Handlers) BoardSettings(c echo.Context) error {
	set, err := h.Leaderboards.Settings(c.Request().Context(), httpio.PathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, set)
}

// PutBoardSettings saves a board's settings. Fields left out keep their current values.
func (h *Handlers) PutBoardSettings(c echo.Context) error {
	ctx, board := c.Request().Context(), httpio.PathParam(c, "board")
	var req struct {
		TieBreak      *domain.TieBreak  `json:"tie_break"`
		Periods       *[]domain.Period  `json:"periods"`
		RetentionDays json.RawMessage   `json:"retention_days"`
		KeepSeasons   json.RawMessage   `json:"keep_seasons"`
		SeasonEvery   *domain.Period    `json:"season_every"`
		SeasonZone    *string           `json:"season_zone"`
		SortOrder     *domain.SortOrder `json:"sort_order"`
		Operator      *domain.Operator  `json:"operator"`
		// Confirm acknowledges what changing the order or operator of a board that has
		// entries does (a 409 naming the field confirm says it first).
		Confirm bool `json:"confirm"`
	}
	if err := httpio.DecodeJSON(c, &req); err != nil {
		return err
	}
	patch := domain.BoardSettingsPatch{TieBreak: req.TieBreak, Periods: req.Periods, SeasonEvery: req.SeasonEvery, SeasonZone: req.SeasonZone,
		SortOrder: req.SortOrder, Operator: req.Operator}
	if req.SortOrder != nil || req.Operator != nil {
		if err := h.confirmRankingChange(ctx, board, patch, req.Confirm); err != nil {
			return err
		}
	}
	if len(req.KeepSeasons) > 0 {
		keep, err := httpio.KeepSeasonsInput.JSON(req.KeepSeasons)
		if err != nil {
			return err
		}
		patch.KeepSeasons = new(int(keep))
	}
	if len(req.RetentionDays) > 0 {
		days, err := httpio.RetentionInput.JSON(req.RetentionDays)
		if err != nil {
			return err
		}
		patch.RetentionDays = new(int(days))
	}
	set, err := h.Leaderboards.PatchSettings(ctx, board, patch)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, set)
}

// confirmRankingChange refuses (409, field confirm) a change of the order or operator of a
// board that has entries unless confirmed, saying what the change does. Returns EINVALID for
// an unknown value (before anything is read), ECONFLICT.
func (h *Handlers) confirmRankingChange(ctx context.Context, board string, patch domain.BoardSettingsPatch, confirmed bool) error {
	if err := domain.ValidateRankingPatch(patch); err != nil {
		return err
	}
	if confirmed {
		return nil
	}
	set, err := h.Leaderboards.Settings(ctx, board)
	if err != nil {
		return err
	}
	top, err := h.Leaderboards.Top(ctx, board, domain.AllTime, 1)
	if err != nil || top.Players == 0 {
		return err
	}
	if what := domain.RankingChange(set, patch.Apply(set), top.Players); what != "" {
		return domain.FieldErrorf("confirm", domain.ECONFLICT, "board %q has entries: %s. Send the change again with \"confirm\": true to make it", board, what)
	}
	return nil
}

func (h *Handlers) Top(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	n, err := httpio.TopNInput.Query(c, domain.BoardTopN)
	if err != nil {
		return err
	}
	top, err := h.Leaderboards.Top(c.Request().Context(), httpio.PathParam(c, "board"), period, n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, top)
}

func (h *Handlers) Player(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	entry, err := h.Leaderboards.Player(c.Request().Context(), httpio.PathParam(c, "board"), period, httpio.PathParam(c, "player"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

// PlayerHistory answers a page of a player's score changes through zpulse, newest first.
func (h *Handlers) PlayerHistory(c echo.Context) error {
	limit, err := httpio.HistoryPageInput.Query(c, domain.DefaultHistoryPage)
	if err != nil {
		return err
	}
	hist, err := h.Leaderboards.PlayerHistory(c.Request().Context(), httpio.PathParam(c, "board"), httpio.PathParam(c, "player"),
		domain.HistoryOptions{Limit: limit, Cursor: c.QueryParam("cursor")})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, hist)
}

func (h *Handlers) Around(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	n, err := httpio.AroundNInput.Query(c, 5)
	if err != nil {
		return err
	}
	entries, err := h.Leaderboards.Around(c.Request().Context(), httpio.PathParam(c, "board"), period, httpio.PathParam(c, "player"), n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

func (h *Handlers) Entries(c echo.Context) error {
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	limit, err := httpio.EntriesInput.Query(c, 100)
	if err != nil {
		return err
	}
	page, err := h.Leaderboards.Entries(c.Request().Context(), httpio.PathParam(c, "board"), period, c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}
