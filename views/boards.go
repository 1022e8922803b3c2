package views

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// BoardPageData is what a board's page shows.
type BoardPageData struct {
	Top      domain.BoardTop
	Period   domain.Period
	N        int
	Settings domain.BoardSettings
	BigKey   int64 // members above which a board counts as a big key
	Lookup   *Lookup
	Forms    map[string]Form // by form id (see BoardFormIDs)
	History  *domain.History // nil: not shown
	// Encoding is the check of the board's scores against its encoding (nil: not checked).
	Encoding *domain.EncodingReport
}

// Lookup is the outcome of a player lookup: the player's entry (nil: not ranked) and the
// entries around it.
type Lookup struct {
	Player string
	Entry  *domain.Entry
	Around []domain.Entry
	Err    string
	// History is the player's latest score changes through zpulse (a zpulse board's; nil
	// for an adopted board, which has none).
	History *domain.ScoreHistory
}

// scoreChange is a score event as the player's timeline says it: "+7", "−3", "set to 40",
// "removed".
func scoreChange(e domain.ScoreEvent) string {
	switch {
	case e.Action == domain.ScoreSet:
		return "set to " + FormatCount(e.Points)
	case e.Action == domain.ScoreRemoved:
		return "removed"
	case e.Action == domain.ScoreReset:
		return "board reset"
	case e.Action == domain.ScoreSeason:
		return "season ended"
	case e.Points >= 0:
		return "+" + FormatCount(e.Points)
	}
	return "−" + FormatCount(-e.Points)
}

// BoardFormIDs are the board page's forms: add points, set a score, remove a player, trim,
// reset, settings.
var BoardFormIDs = []string{"add", "score", "remove", "trim", "reset", "settings"}

// BoardFormSection is the id of the section that holds a board form.
func BoardFormSection(id string) string {
	switch id {
	case "add":
		return "add-points"
	default:
		return "board-" + id
	}
}

func (d BoardPageData) form(id string) Form {
	if f, ok := d.Forms[id]; ok {
		return f
	}
	return NewForm()
}

// BoardPanelID is the id of a board's live panel for a period and size.
func BoardPanelID(board string, period domain.Period, n int) string {
	return domID("board-"+string(period)+"-"+strconv.Itoa(n), board)
}

func boardURL(board string) string { return "/boards/" + url.PathEscape(board) }

// boardViewURL is a board page showing a period and a size.
func boardViewURL(board string, period domain.Period, n int) string {
	q := url.Values{}
	if period != domain.AllTime {
		q.Set("period", string(period))
	}
	if n != domain.BoardTopN {
		q.Set("n", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return boardURL(board)
	}
	return boardURL(board) + "?" + q.Encode()
}

// lookupURL is a board's page with a player looked up.
func lookupURL(board string, period domain.Period, n int, player string) string {
	page, sep := boardViewURL(board, period, n), "?"
	if strings.Contains(page, "?") {
		sep = "&"
	}
	return page + sep + url.Values{"player": {player}}.Encode()
}

func entriesURL(board string, period domain.Period, cursor string) string {
	q := url.Values{}
	if period != domain.AllTime {
		q.Set("period", string(period))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	u := boardURL(board) + "/entries"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func periodTabs(s domain.BoardSettings) []domain.Period {
	return append([]domain.Period{domain.AllTime}, s.Periods...)
}

// tieBreakLabel names a board's score encoding by what it does; its range and precision
// are TieBreak.RangeText.
func tieBreakLabel(t domain.TieBreak) string {
	switch t {
	case domain.TieBreakFirstReached:
		return "Ties: first to reach ranks higher (time in the score's fraction)"
	case domain.TieBreakFirstReachedE10:
		return "Ties: first to reach ranks higher (points × 10¹⁰ + time)"
	case domain.TieBreakFirstReachedWide:
		return "Ties: first to reach ranks higher (wide range)"
	}
	return "Ties: by player id"
}

func pointsHint(s domain.BoardSettings) string {
	return "A whole number from " + FormatCount(-s.MaxPoints()) + " to " + FormatCount(s.MaxPoints()) + "; negative takes points away"
}

// addTitle is the add form's title and button: "Submit a score" on best and set boards.
func addTitle(s domain.BoardSettings) string {
	if s.Op().Submits() {
		return "Submit a score"
	}
	return "Add points"
}

// submitHint is the score field's hint on best and set boards.
func submitHint(s domain.BoardSettings) string {
	kept := "the latest score is kept"
	if s.Op() == domain.OperatorBest {
		kept = "kept only when better than the player's (higher)"
		if s.Order().Ascending() {
			kept = "kept only when better than the player's (lower)"
		}
	}
	return "A whole number from " + FormatCount(-s.MaxPoints()) + " to " + FormatCount(s.MaxPoints()) + "; " + kept
}

// sortOrderLabel and operatorLabel name the settings' choices for people.
func sortOrderLabel(o domain.SortOrder) string {
	if o.Ascending() {
		return "Lower is better (e.g. times: the lowest ranks first)"
	}
	return "Higher is better (the highest ranks first)"
}

func operatorLabel(op domain.Operator) string {
	switch op {
	case domain.OperatorBest:
		return "Keeps the player’s best score"
	case domain.OperatorSet:
		return "Replaces the player’s score (the latest is kept)"
	}
	return "Adds up (points add to the player’s score)"
}

// settingValue is what the form holds for a setting, or the saved value before a post.
func settingValue(f Form, name, saved string) string {
	if v, ok := f.Values[name]; ok {
		return v
	}
	return saved
}

func periodChecked(f Form, s domain.BoardSettings, p domain.Period) bool {
	if v, ok := f.Values["periods"]; ok {
		return slices.Contains(strings.Split(v, ","), string(p))
	}
	return s.Keeps(p)
}

func withDefault(f Form, name, def string) Form {
	if _, ok := f.Values[name]; ok {
		return f
	}
	g := Form{Values: maps.Clone(f.Values), Errors: f.Errors, Success: f.Success}
	if g.Values == nil {
		g.Values = map[string]string{}
	}
	g.Values[name] = def
	return g
}

func rawTitle(e domain.Entry) string {
	if float64(e.Score) == e.Raw {
		return ""
	}
	return "Redis score " + strconv.FormatFloat(e.Raw, 'f', -1, 64)
}

// entriesRankURL is the entries page from a rank on.
func entriesRankURL(board string, period domain.Period, rank int64) string {
	q := url.Values{"rank": {strconv.FormatInt(rank, 10)}}
	if period != domain.AllTime {
		q.Set("period", string(period))
	}
	return boardURL(board) + "/entries?" + q.Encode()
}

// exportURL is a board's CSV export.
func exportURL(board string, period domain.Period) string {
	if period == domain.AllTime {
		return boardURL(board) + "/export.csv"
	}
	return boardURL(board) + "/export.csv?" + url.Values{"period": {string(period)}}.Encode()
}

// countsOn says which boards an add counts on.
func countsOn(s domain.BoardSettings) string {
	names := []string{"all time"}
	for _, p := range s.Periods {
		names = append(names, strings.ToLower(p.Label()))
	}
	return "Counts on: " + strings.Join(names, ", ") + ". Period boards count adds from when they were turned on; a score set or a removal changes the all-time board."
}

// misfitFits says which encodings a misfit score fits.
func misfitFits(m *domain.EncodingMisfit) string {
	if len(m.Fits) == 0 {
		return ", which fits no encoding"
	}
	names := make([]string, len(m.Fits))
	for i, t := range m.Fits {
		names[i] = string(t)
	}
	return ", which reads as " + strings.Join(names, " or ")
}

func encodingFixURL(board string, to domain.TieBreak) string {
	return boardURL(board) + "/encoding/fix?" + url.Values{"tie_break": {string(to)}}.Encode()
}
