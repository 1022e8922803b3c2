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

func TestParsePoints(t *testing.T) {
	good := map[string]int64{"0": 0, "50": 50, "-10": -10, "+7": 7, "9007199254740991": MaxSafeScore, "-9007199254740991": -MaxSafeScore}
	for in, want := range good {
		if got, err := ParsePoints(in); err != nil || got != want {
			t.Errorf("ParsePoints(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1.5", "abc", "1e3", "9007199254740992", "-9007199254740992", "99999999999999999999", "0x10", "1_000", " 5"} {
		_, err := ParsePoints(bad)
		if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), "whole number") {
			t.Errorf("ParsePoints(%q) = %v, want EINVALID saying points are whole numbers", bad, err)
		}
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
