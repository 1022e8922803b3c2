package views

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/zpulse/zpulse/internal/domain"
)

// sourceEncoding is one choice of the adopt form's encoding: its value, its name and a line
// saying what the service's keys hold.
type sourceEncoding struct {
	Value, Label, Hint string
}

// sourceEncodings lists the encodings each kind of source offers, the default first; a lock
// has none.
func sourceEncodings(k domain.SourceKind) []sourceEncoding {
	switch k {
	case domain.SourceBoard:
		var out []sourceEncoding
		for _, t := range domain.TieBreaks {
			out = append(out, sourceEncoding{string(t), tieBreakLabel(t), t.RangeText()})
		}
		return out
	case domain.SourceQueue:
		return []sourceEncoding{
			{domain.SourcePriority, "Priority queue", "the score is priority × 10¹³ + the time it was added; 0 leaves first"},
			{domain.SourceRunAt, "Delayed queue", "the score is the time the job is due, in ms"},
		}
	case domain.SourceLimiter:
		return []sourceEncoding{
			{domain.SourceFixedWindow, "Fixed window", "a counter per client and window, the key with {client} and {window_start}"},
			{domain.SourceSlidingLog, "Sliding log", "a sorted set per client, one member per request, the key with {client}"},
			{domain.SourceTokenBucket, "Token bucket", "a hash per client with the tokens and the last refill, in the fields you name below, the key with {client}"},
		}
	}
	return nil
}

// sourceKeyHint says what a kind's key (or template) is.
func sourceKeyHint(k domain.SourceKind) string {
	switch k {
	case domain.SourceBoard:
		return "A key, or a template with one of {yyyymmdd} {yyyy-mm-dd} {yyyy-Www} {yyyy-mm} for the current period"
	case domain.SourceQueue:
		return "The queue's sorted set"
	case domain.SourceLimiter:
		return "A template with {client} (and {window_start} for a fixed window)"
	}
	return "A prefix: every key under it is a lock"
}

// encodingChecked says whether an encoding's choice starts checked: the one sent back, else
// the first of the chosen kind (a board when none is chosen).
func encodingChecked(f Form, k domain.SourceKind, i int, e sourceEncoding) bool {
	if v := f.Value("encoding"); v != "" {
		return v == e.Value
	}
	return i == 0 && string(k) == sourceKind(f)
}

// sourceKind is the kind the adopt form has chosen: a board before any choice.
func sourceKind(f Form) string {
	if k := f.Value("kind"); k != "" {
		return k
	}
	return string(domain.SourceKinds[0])
}

func sourceURL(name string) string { return "/sources/" + url.PathEscape(name) }

// sourceEntriesURL is an adopted board's "Browse all" page after a cursor ("" for the first).
func sourceEntriesURL(name, cursor string) string {
	if cursor == "" {
		return sourceURL(name) + "/entries"
	}
	return sourceURL(name) + "/entries?" + url.Values{"cursor": {cursor}}.Encode()
}

// sourceEntriesRankURL is an adopted board's "Browse all" page from a rank on.
func sourceEntriesRankURL(name string, rank int64) string {
	return sourceURL(name) + "/entries?" + url.Values{"rank": {strconv.FormatInt(rank, 10)}}.Encode()
}

// sourceLookupURL is an adopted board's page with a player looked up.
func sourceLookupURL(name, player string) string {
	return sourceURL(name) + "?" + url.Values{"player": {player}}.Encode()
}

// sourceExportURL is an adopted board's CSV export.
func sourceExportURL(name string) string { return sourceURL(name) + "/export.csv" }

// sourceEncodingText is a source's encoding with the options the service chose.
func sourceEncodingText(s domain.Source) string {
	out := s.Encoding
	if s.Zone != "" {
		out += " · " + s.Zone
	}
	if s.MaxTS != 0 {
		out += " · max_ts " + strconv.FormatInt(s.MaxTS, 10)
	}
	if s.Kind == domain.SourceBoard && s.Order().Ascending() {
		out += " · lower is better"
	}
	if s.Encoding == domain.SourceTokenBucket {
		out += " · " + s.TokensField + ", " + s.TimeField + " (" + s.TimeUnit + ") · " + strconv.FormatFloat(s.RatePerS, 'f', -1, 64) + "/s"
	}
	return out
}

// clientCountUnit says what an adopted limiter's client count is.
func clientCountUnit(s domain.Source) string {
	if s.Encoding == domain.SourceTokenBucket {
		return " tokens"
	}
	return ""
}

// adoptedKey is the key a listed source was read at (a dated board's today), else its layout.
func adoptedKey(v domain.SourceView) string {
	if v.Key != "" {
		return v.Key
	}
	return v.Source.Key
}

// adoptedCountUnit says what a listed source's count counts.
func adoptedCountUnit(v domain.SourceView) string {
	switch v.Source.Kind {
	case domain.SourceBoard:
		return Plural(v.Count, "player", "players")
	case domain.SourceQueue:
		return "waiting"
	case domain.SourceLimiter:
		return Plural(v.Count, "client", "clients")
	}
	return Plural(v.Count, "lock", "locks")
}

// suggestedName is the name a suggested layout is adopted under: its fixed part, as a name.
func suggestedName(layout string) string {
	fixed, _, _ := strings.Cut(layout, "{yyyymmdd}")
	name := strings.Trim(strings.Map(func(r rune) rune {
		if r < 128 && (r == ':' || r == '.' || r == '_' || r == '-' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')) {
			return r
		}
		return '-'
	}, fixed), ":._-")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		return "dated"
	}
	return name
}

// sourcePanelTitle heads a source's live panel: a board's top, or what the others show.
func sourcePanelTitle(v domain.SourceView) string {
	switch v.Source.Kind {
	case domain.SourceBoard:
		if v.Key != v.Source.Key {
			return "Today · top " + strconv.Itoa(domain.SourceShown)
		}
		return "Top " + strconv.Itoa(domain.SourceShown)
	case domain.SourceQueue:
		return "Next jobs"
	case domain.SourceLimiter:
		return "Clients"
	}
	return "Locks held"
}

// overlapsOf are the sources name overlaps, from the pairs of domain.SourceOverlaps.
func overlapsOf(overlaps []domain.SourceOverlap, name string) []string {
	var out []string
	for _, o := range overlaps {
		switch name {
		case o.Source:
			out = append(out, o.Other)
		case o.Other:
			out = append(out, o.Source)
		}
	}
	return out
}
