package views

import (
	"net/url"
	"strconv"
	"time"

	"github.com/zpulse/zpulse/internal/domain"
)

// SeasonsPageData is what a board's seasons page shows.
type SeasonsPageData struct {
	Board    string
	List     domain.SeasonList
	Live     domain.BoardTop // the current season's leaders
	Settings domain.BoardSettings
	Form     Form // the season settings form
}

// SeasonPageData is what an ended season's page shows.
type SeasonPageData struct {
	Board  string
	Season domain.Season
	Page   domain.Page
	Cursor string
	Lookup *Lookup
}

func seasonURL(board string, n int64) string {
	return boardURL(board) + "/seasons/" + strconv.FormatInt(n, 10)
}

func seasonPageURL(board string, n int64, cursor string) string {
	return seasonURL(board, n) + "?" + url.Values{"cursor": {cursor}}.Encode()
}

// seasonDate is a season's boundary for people (UTC).
func seasonDate(t time.Time) string { return t.UTC().Format("2 Jan 2006 15:04 UTC") }

// seasonSince says when the current season began.
func seasonSince(started *time.Time) string {
	if started == nil {
		return "since the board began"
	}
	return "since " + seasonDate(*started)
}

// seasonSpan says when an ended season ran.
func seasonSpan(s domain.Season) string {
	if s.Started == nil {
		return "until " + seasonDate(s.Ended)
	}
	from, to := s.Started.UTC(), s.Ended.UTC()
	if from.Format("2006-01-02") == to.Format("2006-01-02") {
		return from.Format("2 Jan 2006, 15:04") + " – " + to.Format("15:04 UTC")
	}
	return from.Format("2 Jan 2006") + " – " + seasonDate(s.Ended)
}

func rolloverLabel(p domain.Period) string {
	switch p {
	case domain.Daily:
		return "Every day at 00:00"
	case domain.Weekly:
		return "Every Monday at 00:00"
	case domain.Monthly:
		return "On the 1st of every month at 00:00"
	}
	return "Only when an admin ends it"
}
