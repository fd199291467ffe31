package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit: deeper input is invalid there,
// so it is invalid here too.
const maxDepth = 10000

// Valid reports whether b is exactly one JSON value, surrounded by optional
// white space, and valid UTF-8 throughout: json.Valid(b) && utf8.Valid(b),
// in one pass.
//
// Why not json.Valid: encoding/json's scanner calls a function per byte and
// runs at a few hundred MB/s, so checking an 8 MiB message took longer than
// decoding it. Here the bytes of a string, where a large message spends
// nearly all its length, are skipped with a table lookup per byte and the
// ASCII ones eight at a time.
func Valid(b []byte) bool {
	i := skipSpace(b, 0)
	i, ok := validValue(b, i, 0)
	if !ok {
		return false
	}
	return skipSpace(b, i) == len(b)
}

// validValue checks the value at b[i] and returns the index just past it.
func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		return validObject(b, i, depth+1)
	case c == '[':
		return validArray(b, i, depth+1)
	case c == '-' || ('0' <= c && c <= '9'):
		return validNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return i, false
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
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
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
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
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// plain marks the bytes a string may hold without a closer look: printable
// ASCII other than the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validString checks the string at b[i] (the opening quote) and returns the
// index just past its closing quote.
func validString(b []byte, i int) (int, bool) {
	i++
	for {
		// Eight plain ASCII bytes at a time: no byte has its high bit set
		// and none is a quote, a backslash or a control character.
		for i+8 <= len(b) && plain[b[i]] && plain[b[i+1]] && plain[b[i+2]] && plain[b[i+3]] &&
			plain[b[i+4]] && plain[b[i+5]] && plain[b[i+6]] && plain[b[i+7]] {
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
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
		default: // a multi-byte sequence
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// validNumber checks a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// HasLineBreak reports whether b holds a raw CR or LF byte. In valid JSON
// those can only be insignificant white space, which a line-delimited
// message must not carry. Two memchr-speed searches beat one pass that
// tests each byte against a set.
func HasLineBreak(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}
