package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// ErrNotObject reports input that is not a JSON object.
var ErrNotObject = errors.New("jsonscan: not a JSON object")

// Members calls f with each member of the object in b, in order: the key
// (decoded) and the value's raw bytes, which alias b. It stops early when f
// returns false.
func Members(b []byte, f func(key string, value []byte) bool) error {
	return MembersBytes(b, func(k, v []byte) bool { return f(string(k), v) })
}

// MembersBytes is Members with each key as bytes, for callers that only
// compare keys: a key aliases b, unless it has escapes or invalid UTF-8 and
// is decoded into new bytes. f must not modify it.
func MembersBytes(b []byte, f func(key, value []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return ErrNotObject
		}
		end := skipString(b, i)
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			// Escapes and invalid UTF-8 decode as encoding/json decodes them.
			k, err := decodeKey(b[i:end])
			if err != nil {
				return err
			}
			key = []byte(k)
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return ErrNotObject
		}
		i = skipSpace(b, i+1)
		vend := Skip(b, i)
		if !f(key, b[i:vend]) {
			return nil
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		break
	}
	return nil
}

// decodeKey decodes a member name with encoding/json, which also says what
// is wrong with it. It is apart so that its result does not escape to the
// heap for the keys that need no decoding.
func decodeKey(tok []byte) (string, error) {
	var k string
	err := json.Unmarshal(tok, &k)
	return k, err
}

// ErrNotArray reports input that is not a JSON array.
var ErrNotArray = errors.New("jsonscan: not a JSON array")

// Elements calls f with the raw bytes of each element of the array in b, in
// order; they alias b. It stops early when f returns false.
func Elements(b []byte, f func(value []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrNotArray
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		end := Skip(b, i)
		if end == i {
			return ErrNotArray
		}
		if !f(b[i:end]) {
			return nil
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		break
	}
	return nil
}

// Member returns the raw value of the member key of the object in b, and
// whether it was there. Of duplicate keys the last counts, as in
// encoding/json, so the scan always reaches the end of the object.
func Member(b []byte, key string) ([]byte, bool) {
	var out []byte
	found := false
	_ = Members(b, func(k string, v []byte) bool {
		if k == key {
			out, found = v, true
		}
		return true
	})
	return out, found
}

// NestsDeeper reports whether b nests objects and arrays more than limit
// deep. It reads b once and stops at the first bracket past limit, so a
// value nested a million deep is told apart in the time of limit
// brackets: callers bound recursive walks with it before they start.
func NestsDeeper(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			continue
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
		i++
	}
	return false
}

// Skip returns the index just past the value that starts at b[i].
func Skip(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
//
// Most strings of a message are short (member names, tool names,
// versions): the first words of a string are checked eight bytes at a
// time in this loop (quoteOrEscape), which costs a third of the two
// searches below on the strings of a tools/call's _meta.
//
// Past shortRun bytes it finds the next quote with bytes.IndexByte and
// looks for a backslash only before that quote: a search for backslashes
// that ran on to the end of b made every string cost the rest of the
// message, and a message of many short strings quadratic time. The quote
// is remembered across escapes and searched again only once an escape
// consumed it, so each byte is searched at most once for each, and text
// with many escapes stays linear too.
func skipString(b []byte, i int) int {
	i++
	for end := i + shortRun; i <= len(b)-8 && i < end; {
		m := quoteOrEscape(binary.LittleEndian.Uint64(b[i:]))
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)/8 // the first quote or backslash
		if b[j] == '"' {
			return j + 1
		}
		i = j + 2 // a backslash and the character it escapes
	}
	q := -1 // the next quote at or after i
	for {
		if q < i {
			if q = indexFrom(b, i, '"'); q < 0 {
				return len(b)
			}
		}
		bs := bytes.IndexByte(b[i:q], '\\')
		if bs < 0 {
			return q + 1
		}
		i += bs + 2 // a backslash and the character it escapes
	}
}

// shortRun is how far into a string skipString checks words itself
// before it hands the rest to bytes.IndexByte, which is faster on long
// text.
const shortRun = 64

// quoteOrEscape marks, with the high bit of each byte, the quotes and
// backslashes among the eight bytes of w (little-endian). The lowest mark
// is exact: a byte gets a false one only from a borrow out of a marked
// byte below it.
func quoteOrEscape(w uint64) uint64 {
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs) & highs
}

// indexFrom is bytes.IndexByte from b[i] on, as an index into b.
func indexFrom(b []byte, i int, c byte) int {
	if i >= len(b) {
		return -1
	}
	j := bytes.IndexByte(b[i:], c)
	if j < 0 {
		return -1
	}
	return i + j
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}
