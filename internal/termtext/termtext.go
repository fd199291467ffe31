package termtext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape writes, Go-style (\x1b, \u202e), every rune of s that a terminal
// acts on or hides rather than shows: control characters (C0, DEL, C1),
// format characters (bidirectional overrides, zero-width ones), spaces
// other than U+0020 (U+00A0 looks like one and is not), and a CR that
// would return to the start of its line rather than end it. Line breaks,
// tabs and a CR before a line feed are kept, bytes that are not UTF-8
// become U+FFFD, and everything else is as it was.
func Escape(s string) string { return escape(s, false) }

// EscapeLine is Escape for text shown on one line among a program's own
// (a progress message, a line of a server's stderr): line breaks and tabs
// are escaped too, so that the text cannot start a line that reads as the
// program's.
func EscapeLine(s string) string { return escape(s, true) }

func escape(s string, line bool) string {
	for i, r := range s {
		if !keep(s, i, r, line) {
			return escapeFrom(s, i, line)
		}
	}
	return s
}

// keep reports whether r, at s[i:], is shown as it is. A byte that is not
// UTF-8 (r is RuneError) becomes U+FFFD: a lone 0x9b is a CSI to a
// terminal that reads 8-bit controls.
func keep(s string, i int, r rune, line bool) bool {
	switch {
	case r == utf8.RuneError:
		return false
	case r == '\n' || r == '\t':
		return !line
	case r == '\r':
		return !line && strings.HasPrefix(s[i+1:], "\n")
	}
	return Printable(r)
}

// Printable reports whether r is shown as it is wherever it stands: not a
// control or format character, not a space other than U+0020, and not
// U+FFFD (which stands for bytes that are not UTF-8 when decoded).
// Escape keeps line breaks and tabs besides.
func Printable(r rune) bool {
	return r != utf8.RuneError && unicode.IsPrint(r)
}

// escapeFrom is Escape of s, whose runes before start need none.
func escapeFrom(s string, start int, line bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:start])
	for i, r := range s[start:] {
		if keep(s, start+i, r, line) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r) // '\x1b', '\u202e'
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
