package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit: json.Valid rejects input that
// nests objects and arrays deeper.
const maxDepth = 10000

// Valid reports whether b is one valid JSON value, with optional white
// space around it: exactly what json.Valid reports, nesting limit
// included. It is several times faster on long strings, which it checks
// eight bytes at a time, so that code that must not trust its input can
// check it before walking it with the other functions of this package.
func Valid(b []byte) bool {
	end, ok := validValue(b, skipSpace(b, 0), 0)
	return ok && skipSpace(b, end) == len(b)
}

// validValue checks the value that starts at b[i], inside depth open
// objects and arrays, and returns the index just past it.
func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return validString(b, i)
	case '{':
		return validObject(b, i, depth+1)
	case '[':
		return validArray(b, i, depth+1)
	case 't':
		return validLiteral(b, i, "true")
	case 'f':
		return validLiteral(b, i, "false")
	case 'n':
		return validLiteral(b, i, "null")
	}
	return validNumber(b, i)
}

func validObject(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = validString(b, i); !ok {
			return i, false
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = validValue(b, skipSpace(b, i+1), depth); !ok {
			return i, false
		}
		i = skipSpace(b, i)
		switch {
		case i >= len(b):
			return i, false
		case b[i] == '}':
			return i + 1, true
		case b[i] != ',':
			return i, false
		}
		i = skipSpace(b, i+1)
	}
}

func validArray(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = validValue(b, i, depth); !ok {
			return i, false
		}
		i = skipSpace(b, i)
		switch {
		case i >= len(b):
			return i, false
		case b[i] == ']':
			return i + 1, true
		case b[i] != ',':
			return i, false
		}
		i = skipSpace(b, i+1)
	}
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// validNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; what
// may follow it is up to the caller.
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return i, false
		}
		i = skipDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = skipDigits(b, i)
	}
	return i, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// validString checks the string that starts at b[i] (its opening quote):
// no raw control characters, only the escapes JSON defines. Like
// json.Valid, it does not require valid UTF-8.
func validString(b []byte, i int) (int, bool) {
	i++
	for {
		// plainRun(b[i:], false), by hand: the call cost as much as the
		// run on the short strings most of a message is made of.
		for {
			if len(b)-i < 8 {
				i += plainRun(b[i:], false)
				break
			}
			if m := special(binary.LittleEndian.Uint64(b[i:]), false); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		default:
			i++ // a byte of a multi-byte character
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports, as a non-zero word, whether any of the eight bytes in w
// is a quote, a backslash or a control character (below 0x20); with
// nonASCII, bytes from 0x80 up count too. These are the bytes that end a
// run of string content that needs no work. The mark (high bit) of the
// first such byte (w little-endian) is exact: a subtraction that borrows
// out of a marked byte may mark bytes above it, never one below.
func special(w uint64, nonASCII bool) uint64 {
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	m := (q - ones) &^ q
	m |= (bs - ones) &^ bs
	m |= (w - ones*0x20) &^ w
	if nonASCII {
		m |= w
	}
	return m & highs
}

// plainRun returns how many bytes at the start of s are string content
// that needs no work: neither quote, backslash nor control character, nor,
// with nonASCII, any byte from 0x80 up. It checks eight bytes at a time.
func plainRun(s []byte, nonASCII bool) int {
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		if m := special(binary.LittleEndian.Uint64(s[i:]), nonASCII); m != 0 {
			// The lowest mark is exact (see special): no byte before it
			// needs looking at again.
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || nonASCII && c >= 0x80 {
			break
		}
	}
	return i
}

// MembersValid reports whether b is one valid JSON value, as Valid does,
// and, if it is an object, calls f with each of its members as it checks
// them, as MembersBytes would after Valid: one pass over b instead of two.
// f gets each value once it is checked, and its key as MembersBytes gives
// it. f returning false stops the calls, not the check.
func MembersValid(b []byte, f func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		end, ok := validValue(b, i, 0)
		return ok && skipSpace(b, end) == len(b)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	calling := true
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, ok := validString(b, i)
		if !ok {
			return false
		}
		tok := b[i:end]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		start := skipSpace(b, i+1)
		if i, ok = validValue(b, start, 1); !ok {
			return false
		}
		if calling {
			key := tok[1 : len(tok)-1]
			if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
				// Escapes and invalid UTF-8 decode as encoding/json decodes them.
				k, err := decodeKey(tok)
				if err != nil {
					return false
				}
				key = []byte(k)
			}
			calling = f(key, b[start:i])
		}
		i = skipSpace(b, i)
		switch {
		case i >= len(b):
			return false
		case b[i] == '}':
			return skipSpace(b, i+1) == len(b)
		case b[i] != ',':
			return false
		}
		i = skipSpace(b, i+1)
	}
}
