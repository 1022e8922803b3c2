package views

import (
	"slices"
	"strings"

	"github.com/a-h/templ"
)

// Form is a form's state: what was typed, errors per field ("" for the whole form), and the
// message after a success.
type Form struct {
	Values  map[string]string
	Errors  map[string]string
	Success string
}

// NewForm returns an empty form.
func NewForm() Form { return Form{Values: map[string]string{}, Errors: map[string]string{}} }

// Value is what was typed into a field.
func (f Form) Value(name string) string { return f.Values[name] }

// Err is a field's error, or the form's for "".
func (f Form) Err(name string) string { return f.Errors[name] }

// ErrFor is a field's error as the form shows it, under the field labelled label: a message
// that begins with the field's key, as the API's do ("run_at must be…"), begins with the label
// the user sees instead, quoted ("“Run at” must be…").
func (f Form) ErrFor(name, label string) string {
	msg := f.Errors[name]
	if rest, ok := strings.CutPrefix(msg, name); ok && name != "" && (rest == "" || rest[0] == ' ' || rest[0] == ':') {
		return "“" + label + "”" + rest
	}
	return msg
}

// OK says whether the form has no error.
func (f Form) OK() bool { return len(f.Errors) == 0 }

// fieldID is an input's id: f-<form>-<name>, or f-<name> for a form without an id.
func fieldID(form, name string) string {
	if form == "" {
		return "f-" + name
	}
	return "f-" + form + "-" + name
}

// inputMode is the keyboard a phone offers for a field: digits for whole numbers, decimals for
// seconds; "" for text, and for points, which may be negative (a numeric keypad has no minus).
func inputMode(name string) string {
	switch name {
	case "keep", "retention_days", "priority", "max_attempts", "n", "limit", "burst":
		return "numeric"
	case "ttl", "wait", "rate":
		return "decimal"
	}
	return ""
}

// shownFor marks a part of a form as applying to some of a choice's values only (these, out
// of all): with JavaScript the page shows it only while one of them is chosen (data-off,
// which app.js keeps following the select marked data-choice); without, every part shows,
// each saying what it is for, and the server reads only the chosen value's fields. With no
// valid value chosen, every part shows.
func shownFor[T ~string](chosen string, all []T, these ...T) templ.Attributes {
	names := make([]string, len(these))
	for i, v := range these {
		names[i] = string(v)
	}
	attrs := templ.Attributes{"data-for-choice": strings.Join(names, " ")}
	if slices.Contains(all, T(chosen)) && !slices.Contains(these, T(chosen)) {
		attrs["data-off"] = true
	}
	return attrs
}
