package domain

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What helps an operator decide about failed jobs and search results: a dead job's last
// error, shortened for a list (the whole one is on its page), the dead jobs grouped by that
// error, and the excerpt of a payload a search matched, the match marked.

// ShortErrorRunes bounds a shortened error: a list shows this much of a dead job's last error.
const ShortErrorRunes = 120

// ShortError is msg for a list: its first line, runs of white space as one space, at most
// ShortErrorRunes runes (then "…").
func ShortError(msg string) string {
	line, _, cut := strings.Cut(strings.TrimSpace(msg), "\n")
	line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
	if utf8.RuneCountInString(line) > ShortErrorRunes {
		r := []rune(line)
		return strings.TrimSpace(string(r[:ShortErrorRunes-1])) + "…"
	}
	if cut && line != "" {
		return line + " …"
	}
	return line
}

// LastError is the last failed attempt's error among a job's kept errors (an operator's
// edit is no failure); "" when there is none.
func LastError(errs []AttemptError) string {
	for i := len(errs) - 1; i >= 0; i-- {
		if errs[i].Edit == "" {
			return errs[i].Error
		}
	}
	return ""
}

// MaxErrorGroupScan bounds the dead jobs DeadErrors reads: the latest deaths.
const MaxErrorGroupScan = 1000

// ErrorGroup is the dead jobs whose last error reads the same, shortened (ShortError).
type ErrorGroup struct {
	Error string `json:"error"` // "" for jobs that died with no error kept
	Count int64  `json:"count"`
	// Latest is the id of the latest death among them, to open one.
	Latest string `json:"latest"`
}

// DeadErrorGroups are a queue's latest dead jobs grouped by their last error, the largest
// group first.
type DeadErrorGroups struct {
	Queue  string       `json:"queue"`
	Groups []ErrorGroup `json:"groups"`
	// Scanned counts the dead jobs read (the latest MaxErrorGroupScan at most); Dead all of them.
	Scanned int64 `json:"scanned"`
	Dead    int64 `json:"dead"`
}

// DeadErrorOps group a queue's dead jobs by error. Part of the queues' implementation.
type DeadErrorOps interface {
	// DeadErrors groups the latest MaxErrorGroupScan dead jobs of queue by their last
	// error. Returns EINVALID; EUNAVAILABLE.
	DeadErrors(ctx context.Context, queue string) (DeadErrorGroups, error)
}

// ExcerptRunes is how much of a payload an excerpt shows on each side of the match.
const ExcerptRunes = 40

// Excerpt is the part of a payload a search matched: the match and what surrounds it
// (Before starts, After ends, with "…" where the payload goes on).
type Excerpt struct {
	Before string `json:"before"`
	Match  string `json:"match"`
	After  string `json:"after"`
}

// ExcerptOf returns the excerpt of payload around the first match of the search text,
// ignoring case as Matches does; nil when the text is not in it.
func (o JobSearchOptions) ExcerptOf(payload []byte) *Excerpt {
	if o.Text == "" || len(payload) == 0 {
		return nil
	}
	s := string(payload)
	at, n := indexFold(s, o.Text)
	if at < 0 {
		return nil
	}
	before, after := []rune(s[:at]), []rune(s[at+n:])
	e := &Excerpt{Before: string(before), Match: s[at : at+n], After: string(after)}
	if len(before) > ExcerptRunes {
		e.Before = "…" + string(before[len(before)-ExcerptRunes:])
	}
	if len(after) > ExcerptRunes {
		e.After = string(after[:ExcerptRunes]) + "…"
	}
	return e
}

// indexFold is the byte offset and length, in s, of the first text that equals sub ignoring
// case (Unicode simple folding, as containsFold); -1 when there is none.
func indexFold(s, sub string) (int, int) {
	width := utf8.RuneCountInString(sub)
	for i := range s {
		j, k := i, 0
		for k < width && j < len(s) {
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size
			k++
		}
		if k == width && strings.EqualFold(s[i:j], sub) {
			return i, j - i
		}
	}
	return -1, 0
}
