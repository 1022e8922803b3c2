package domain

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"game:2048", "a", "A-b_c.d:e", strings.Repeat("x", 64)} {
		if err := ValidateName("board", ok); err != nil {
			t.Errorf("ValidateName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", 65), "a b", "a/b", "é", "a*", "<img>"} {
		err := ValidateName("board", bad)
		if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "1 to 64 characters") {
			t.Errorf("ValidateName(%q) = %v, want EINVALID saying what is allowed", bad, err)
		}
	}
}

func TestValidateMember(t *testing.T) {
	for _, ok := range []string{"alice", "Zoë", "<img src=x onerror=alert(1)>", "a b", "🎮", strings.Repeat("x", 64), strings.Repeat("é", 32)} {
		if err := ValidateMember("player", ok); err != nil {
			t.Errorf("ValidateMember(%q) = %v, want nil", ok, err)
		}
	}
	cases := map[string]string{
		"":                      "required",
		strings.Repeat("x", 65): "at most 64 bytes",
		strings.Repeat("é", 33): "at most 64 bytes", // 66 bytes, 33 characters
		"a\nb":                  "printable",
		"a\x00b":                "printable",
		"\xff":                  "UTF-8",
	}
	for in, want := range cases {
		t.Run(fmt.Sprintf("%q", in), func(t *testing.T) {
			err := ValidateMember("player", in)
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
				t.Errorf("ValidateMember(%q) = %v, want EINVALID mentioning %q", in, err, want)
			}
		})
	}
}

func TestErrorCodeAndMessage(t *testing.T) {
	if ErrorCode(nil) != "" || ErrorMessage(nil) != "" {
		t.Error("nil error has a code or message")
	}
	err := Errorf(ENOTFOUND, "player %q is not on board", "x")
	if ErrorCode(err) != ENOTFOUND || ErrorMessage(err) != `player "x" is not on board` {
		t.Errorf("got %q %q", ErrorCode(err), ErrorMessage(err))
	}
	other := strings.NewReader("").UnreadByte() // a plain error
	if ErrorCode(other) != EINTERNAL || ErrorMessage(other) != "internal error" {
		t.Errorf("plain error: got %q %q, want internal and a message that hides details", ErrorCode(other), ErrorMessage(other))
	}
}

// A board named like another board's period board is refused with the reason; names that
// only look a little like a period are fine.
func TestValidateNewBoardName(t *testing.T) {
	for _, ok := range []string{"x", "2026-11-30", "x:2026", "x:2026-11-30:eu", "x:2026-W4", "x:W48", "x:2026-11-3"} {
		if err := ValidateNewBoardName(ok); err != nil {
			t.Errorf("ValidateNewBoardName(%q) = %v, want nil", ok, err)
		}
	}
	for name, want := range map[string]string{
		"x:2026-11-30":    `board "x"'s daily board`,
		"a:b:2026-W48":    `board "a:b"'s weekly board`,
		"x:2026-11":       `board "x"'s monthly board`,
		":2026-11":        "choose a name that does not end in",
		"a b":             "1 to 64 characters",
		"x:unique:2026-1": "", // fine: not a period
	} {
		err := ValidateNewBoardName(name)
		if want == "" {
			if err != nil {
				t.Errorf("ValidateNewBoardName(%q) = %v, want nil", name, err)
			}
			continue
		}
		if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
			t.Errorf("ValidateNewBoardName(%q) = %v, want EINVALID mentioning %q", name, err, want)
		}
	}
}

// Limiter clients may hold anything printable but braces, which mark the client in the keys.
func TestValidateClient(t *testing.T) {
	for _, ok := range []string{"c-42", "pa:c", "ip:127.0.0.1", "Zoë", "a b"} {
		if err := ValidateClient(ok); err != nil {
			t.Errorf("ValidateClient(%q) = %v, want nil", ok, err)
		}
	}
	for bad, want := range map[string]string{"a{b": "may not contain { or }", "}": "may not contain { or }", "": "required", "a\x00": "printable"} {
		if err := ValidateClient(bad); ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
			t.Errorf("ValidateClient(%q) = %v, want EINVALID mentioning %q", bad, err, want)
		}
	}
}
