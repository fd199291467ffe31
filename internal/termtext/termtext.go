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
func Escape(s string) string {
	for i, r := range s {
		if !keep(s, i, r) {
			return escapeFrom(s, i)
		}
	}
	return s
}

// keep reports whether r, at s[i:], is shown as it is. A byte that is not
// UTF-8 (r is RuneError) becomes U+FFFD: a lone 0x9b is a CSI to a
// terminal that reads 8-bit controls.
func keep(s string, i int, r rune) bool {
	if r == utf8.RuneError {
		return false
	}
	return r == '\n' || r == '\t' || r == '\r' && strings.HasPrefix(s[i+1:], "\n") || r != '\r' && unicode.IsPrint(r)
}

// escapeFrom is Escape of s, whose runes before start need none.
func escapeFrom(s string, start int) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:start])
	for i, r := range s[start:] {
		if keep(s, start+i, r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r) // '\x1b', '\u202e'
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
