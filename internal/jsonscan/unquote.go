package jsonscan

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote decodes the JSON string token s (quotes included) exactly as
// encoding/json decodes a string: escapes resolved, invalid UTF-8 and
// unpaired surrogates replaced by U+FFFD. It reports false for what
// encoding/json would reject. Text that needs no work, the common case,
// costs one scan of eight bytes at a time and one copy.
//
// The logic is encoding/json's unquoteBytes, with the scan for plain runs
// done a word at a time, and without its \' escape: encoding/json's
// scanner refuses that before unquoteBytes sees it, and callers take
// Unquote's ok for encoding/json's word.
func Unquote(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	r := plainPrefix(s)
	if r == len(s) {
		return string(s), true
	}
	var b strings.Builder
	b.Grow(len(s) + 2*utf8.UTFMax)
	b.Write(s[:r])
	for r < len(s) {
		if n := plainRun(s[r:], true); n > 0 {
			b.Write(s[r : r+n])
			r += n
			continue
		}
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return "", false
			}
			switch s[r] {
			default:
				return "", false
			case '"', '\\', '/': // not \' as unquoteBytes, which runs after the scanner refused it
				b.WriteByte(s[r])
				r++
			case 'b':
				b.WriteByte('\b')
				r++
			case 'f':
				b.WriteByte('\f')
				r++
			case 'n':
				b.WriteByte('\n')
				r++
			case 'r':
				b.WriteByte('\r')
				r++
			case 't':
				b.WriteByte('\t')
				r++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						// A valid pair; consume.
						r += 6
						b.WriteRune(dec)
						break
					}
					// Invalid surrogate; fall back to replacement rune.
					rr = unicode.ReplacementChar
				}
				b.WriteRune(rr)
			}
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			// Coerce to well-formed UTF-8.
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b.WriteRune(rr)
		}
	}
	return b.String(), true
}

// plainPrefix returns the length of the prefix of s that decodes to
// itself: no escapes, quotes or control characters, and valid UTF-8.
func plainPrefix(s []byte) int {
	r := 0
	for r < len(s) {
		r += plainRun(s[r:], true)
		if r >= len(s) {
			break
		}
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	return r
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value,
// or it returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
