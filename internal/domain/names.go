package domain

import (
	"regexp"
	"unicode"
	"unicode/utf8"
)

// MaxMemberBytes is the longest player or client id, in bytes.
const MaxMemberBytes = 64

var namePattern = regexp.MustCompile(`^[A-Za-z0-9:._-]{1,64}$`)

// ValidateName checks the name of a board, queue, limiter or lock: 1..64 characters from
// A-Z a-z 0-9 and ": . _ -". kind names the thing in the message ("board").
// Returns EINVALID.
func ValidateName(kind, name string) error {
	if !namePattern.MatchString(name) {
		return Errorf(EINVALID, "%s name must be 1 to 64 characters from A-Z, a-z, 0-9 and : . _ - (got %q)", kind, clip(name))
	}
	return nil
}

// ValidateMember checks a player or client id: 1..64 bytes of printable UTF-8 (letters,
// marks, numbers, punctuation, symbols and spaces; no control characters).
// kind names the thing in the message ("player"). Returns EINVALID.
func ValidateMember(kind, id string) error {
	switch {
	case id == "":
		return Errorf(EINVALID, "%s is required: 1 to %d bytes of printable UTF-8", kind, MaxMemberBytes)
	case len(id) > MaxMemberBytes:
		return Errorf(EINVALID, "%s must be at most %d bytes of printable UTF-8 (got %d bytes)", kind, MaxMemberBytes, len(id))
	case !utf8.ValidString(id):
		return Errorf(EINVALID, "%s must be valid UTF-8", kind)
	}
	for _, r := range id {
		if !unicode.IsPrint(r) {
			return Errorf(EINVALID, "%s must be printable: control and invisible characters are not allowed (found %U)", kind, r)
		}
	}
	return nil
}

// clip shortens user input quoted back in an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
