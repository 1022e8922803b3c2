package web

import (
	"encoding/csv"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
)

// The API of a board's seasons (end one, list them, read one like a board) and of its
// encoding check.

func (s *server) apiEndSeason(c echo.Context) error {
	season, err := s.Leaderboards.EndSeason(c.Request().Context(), pathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, season)
}

func (s *server) apiSeasons(c echo.Context) error {
	list, err := s.Leaderboards.Seasons(c.Request().Context(), pathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

// seasonParam is the season number of the path.
func seasonParam(c echo.Context) (int64, error) { return seasonInput.parse(pathParam(c, "season")) }

func (s *server) apiSeasonTop(c echo.Context) error {
	n, err := seasonParam(c)
	if err != nil {
		return err
	}
	limit, err := topNInput.query(c, domain.BoardTopN)
	if err != nil {
		return err
	}
	season, entries, err := s.Leaderboards.SeasonTop(c.Request().Context(), pathParam(c, "board"), n, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"season": season, "entries": entries})
}

func (s *server) apiSeasonEntries(c echo.Context) error {
	n, err := seasonParam(c)
	if err != nil {
		return err
	}
	limit, err := entriesInput.query(c, 100)
	if err != nil {
		return err
	}
	page, err := s.Leaderboards.SeasonEntries(c.Request().Context(), pathParam(c, "board"), n, c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

func (s *server) apiSeasonPlayer(c echo.Context) error {
	n, err := seasonParam(c)
	if err != nil {
		return err
	}
	entry, err := s.Leaderboards.SeasonPlayer(c.Request().Context(), pathParam(c, "board"), n, pathParam(c, "player"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

// seasonExport streams an ended season in rank order: rank, player, points.
func (s *server) seasonExport(c echo.Context) error {
	board := pathParam(c, "board")
	n, err := seasonParam(c)
	if err != nil {
		return err
	}
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	file := exportFileName(board, "-season-"+strconv.FormatInt(n, 10)+".csv")
	return s.exportEntries(c, file, func(cursor string) (domain.Page, error) {
		return s.Leaderboards.SeasonEntries(c.Request().Context(), board, n, cursor, domain.MaxPageLimit)
	})
}

// writeEntries writes a page of entries as CSV rows and returns the next cursor, "" after
// the last page or when the download broke.
func writeEntries(w *csv.Writer, page domain.Page) string {
	for _, e := range page.Entries {
		_ = w.Write([]string{strconv.FormatInt(e.Rank, 10), csvCell(e.Player), strconv.FormatInt(e.Score, 10)})
	}
	w.Flush()
	if page.NextCursor == nil || w.Error() != nil {
		return ""
	}
	return *page.NextCursor
}

func (s *server) apiCheckEncoding(c echo.Context) error {
	r, err := s.Leaderboards.CheckEncoding(c.Request().Context(), pathParam(c, "board"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (s *server) apiFixEncoding(c echo.Context) error {
	var req struct {
		TieBreak *domain.TieBreak `json:"tie_break"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.TieBreak == nil {
		return domain.FieldErrorf("tie_break", domain.EINVALID, "tie_break is required: the encoding to save and rewrite misfit scores in (GET …/encoding says which most misfits fit)")
	}
	fix, err := s.Leaderboards.FixEncoding(c.Request().Context(), pathParam(c, "board"), *req.TieBreak)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, fix)
}
