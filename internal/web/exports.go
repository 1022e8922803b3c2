package web

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/zpulse/zpulse/internal/domain"
	"github.com/zpulse/zpulse/internal/web/httpio"
)

// CSV exports, streamed: rows are written as the service pages through Redis with its
// cursor, so an export of a million rows never holds more than one page in memory or asks
// Redis for one huge range.

// csvCell makes a value safe for spreadsheets: a field that starts with = + - @ (or a tab or
// carriage return) is read as a formula, and a spreadsheet that splits on ";", "," or a tab
// may cut a cell into several, so every piece it could make is guarded, not only the cell's
// first character: each such character at the start or right after ; , tab, CR or LF gets a
// quote before it ("a;=cmd" is written a;'=cmd), as OWASP's CSV injection advice says. Text
// columns only (a player named -5 is shown as '-5). encoding/csv does the quoting of commas,
// quotes and newlines.
func csvCell(s string) string {
	var b strings.Builder
	for i := range len(s) {
		if strings.IndexByte("=+-@\t\r", s[i]) >= 0 && (i == 0 || strings.IndexByte(";,\t\r\n", s[i-1]) >= 0) {
			b.WriteByte('\'')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// csvWriter starts a CSV download named file and returns its writer, header written.
func csvWriter(c echo.Context, file string, header ...string) *csv.Writer {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+file+`"`)
	h.Set(echo.HeaderCacheControl, "no-store")
	c.Response().WriteHeader(http.StatusOK)
	w := csv.NewWriter(c.Response())
	_ = w.Write(header)
	return w
}

// exportFileName is a name made of a board's or queue's name (A-Z a-z 0-9 : . _ -), with
// the colons a file system may refuse turned into dashes.
func exportFileName(name, suffix string) string {
	return strings.ReplaceAll(name, ":", "-") + suffix
}

// deadExport streams a queue's dead jobs, latest death first: id, died_at, attempts,
// last_error, payload ("(hidden)" when the reader's audience does not see payloads).
func (s *server) deadExport(c echo.Context) error {
	queue := httpio.PathParam(c, "queue")
	if err := domain.ValidateName("queue", queue); err != nil {
		return err
	}
	aud := s.audience(c)
	var w *csv.Writer
	rows := 0
	err := s.Queues.EachDead(c.Request().Context(), queue, func(j domain.JobDetail) error {
		j = aud.Job(j)
		if w == nil {
			w = csvWriter(c, exportFileName(queue, "-dead.csv"), "id", "died_at", "attempts", "last_error", "payload")
		}
		last := ""
		if len(j.Errors) > 0 {
			last = j.Errors[len(j.Errors)-1].Error
		}
		died := ""
		if j.DiedAt != nil {
			died = j.DiedAt.Format(time.RFC3339Nano)
		}
		rows++
		if rows%domain.DeadBatch == 0 {
			w.Flush()
		}
		payload := string(j.Payload)
		if j.PayloadHidden {
			payload = hiddenCell
		}
		return w.Write([]string{csvCell(j.ID), died, strconv.Itoa(j.Attempts), csvCell(last), csvCell(payload)})
	})
	return s.finishCSV(c, w, err, exportFileName(queue, "-dead.csv"), "id", "died_at", "attempts", "last_error", "payload")
}

// hiddenCell stands for a value withheld from the reader: not JSON, so never a payload.
const hiddenCell = "(hidden)"

// boardExport streams a board (its period's, with ?period=) in rank order: rank, player,
// points.
func (s *server) boardExport(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	period, err := domain.ParsePeriod(c.QueryParam("period"))
	if err != nil {
		return err
	}
	if err := domain.ValidateName("board", board); err != nil {
		return err
	}
	file := exportFileName(board, "-"+string(period)+".csv")
	if period == domain.AllTime {
		file = exportFileName(board, ".csv")
	}
	return s.exportEntries(c, file, func(cursor string) (domain.Page, error) {
		return s.Leaderboards.Entries(c.Request().Context(), board, period, cursor, domain.MaxPageLimit)
	})
}

// exportEntries streams the pages of a board (zpulse's, a season, an adopted board) that
// next reads after a cursor ("" for the first) as the CSV download file: rank, player, points.
func (s *server) exportEntries(c echo.Context, file string, next func(cursor string) (domain.Page, error)) error {
	header := []string{"rank", "player", "points"}
	var w *csv.Writer
	cursor := ""
	for {
		page, err := next(cursor)
		if err != nil {
			return s.finishCSV(c, w, err, file, header...)
		}
		if w == nil {
			w = csvWriter(c, file, header...)
		}
		if cursor = writeEntries(w, page); cursor == "" {
			return nil
		}
	}
}

// finishCSV ends an export: an error before the first row is answered as any error (the
// status is not written yet); one after it can only cut the download short, which the
// client sees as a truncated body.
func (s *server) finishCSV(c echo.Context, w *csv.Writer, err error, file string, header ...string) error {
	if w == nil {
		if err != nil {
			return err
		}
		w = csvWriter(c, file, header...) // nothing to export: the header alone
	}
	w.Flush()
	if err != nil {
		s.Log.Warn("a CSV export was cut short", "path", c.Request().URL.Path, "error", err)
	}
	return nil
}

// seasonExport streams an ended season in rank order: rank, player, points.
func (s *server) seasonExport(c echo.Context) error {
	board := httpio.PathParam(c, "board")
	n, err := httpio.SeasonParam(c)
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
