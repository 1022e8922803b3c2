package domain

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMemberBytes is the longest player or client id, in bytes.
const MaxMemberBytes = 64

var namePattern = regexp.MustCompile(`^[A-Za-z0-9:._-]{1,64}$`)

// ValidateName checks the name of a board, queue, limiter or lock zpulse creates: 1..64
// characters from A-Z a-z 0-9 and ": . _ -". kind names the thing in the message ("board").
// Names zpulse only reads follow ValidateKeyName.
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

// MaxKeyNameBytes is the longest name of a board, queue or lock zpulse shows: another
// service may name its keys as it likes, and zpulse shows them whatever bytes they hold.
const MaxKeyNameBytes = 512

// ValidateKeyName checks the name of a board, queue or lock that zpulse reads, shows or
// releases but does not create: 1 to MaxKeyNameBytes bytes of anything but braces. Braces are
// refused because zpulse's companion keys ({queue:<name>}:jobs, {lock:<name>}:meta) put the
// name in a Redis Cluster hash tag, and a brace inside would move them to another slot. Names
// zpulse creates follow the stricter ValidateName. kind names the thing ("board").
// Returns EINVALID.
func ValidateKeyName(kind, name string) error {
	switch {
	case name == "":
		return Errorf(EINVALID, "%s name is required", kind)
	case len(name) > MaxKeyNameBytes:
		return Errorf(EINVALID, "%s name must be at most %s bytes (got %s)", kind, FormatCount(MaxKeyNameBytes), FormatCount(int64(len(name))))
	case strings.ContainsAny(name, "{}"):
		return Errorf(EINVALID, "%s name must not hold { or }", kind)
	}
	return nil
}
