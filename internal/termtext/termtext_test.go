package termtext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, 中文\n\tend": "plain text, 中文\n\tend",
		"\x1b]0;owned\x07":      `\x1b]0;owned\a`,
		"a\x1b[2J\u009bb\x7f":   `a\x1b[2J\u009bb\x7f`,
		"file\u202etxt.exe":     `file\u202etxt.exe`,
		"50%\rdone":             `50%\rdone`,
		"line\r\nnext":          "line\r\nnext",
		"a\u00a0b":              `a\u00a0b`,
		"zero\u200bwidth":       `zero\u200bwidth`,
		"bad \xff byte":         "bad \ufffd byte",
		"":                      "",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, 中文":       "plain text, 中文",
		"a\rb\nc\td":           `a\rb\nc\td`,
		"line\r\nmcpc: forged": `line\r\nmcpc: forged`,
		"\x1b[31mred":          `\x1b[31mred`,
		"zero\u200bwidth":      `zero\u200bwidth`,
	} {
		if got := EscapeLine(in); got != want {
			t.Errorf("EscapeLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzEscape: nothing a terminal acts on survives, and text that needs no
// escaping comes back as the same string.
func FuzzEscape(f *testing.F) {
	f.Add("\x1b]0;owned\x07")
	f.Fuzz(func(t *testing.T, s string) {
		v := Escape(s)
		for i, r := range v {
			if r == '\r' && !strings.HasPrefix(v[i+1:], "\n") || r != '\n' && r != '\t' && r != '\r' && !unicode.IsPrint(r) {
				t.Fatalf("Escape(%q) = %q holds %U", s, v, r)
			}
		}
		if Escape(v) != v {
			t.Fatalf("Escape(%q) = %q, which Escape changes again", s, v)
		}
		l := EscapeLine(s)
		if strings.IndexFunc(l, func(r rune) bool { return !Printable(r) && r != utf8.RuneError }) >= 0 {
			t.Fatalf("EscapeLine(%q) = %q holds what a line may not", s, l)
		}
		if EscapeLine(l) != l {
			t.Fatalf("EscapeLine(%q) = %q, which EscapeLine changes again", s, l)
		}
	})
}
