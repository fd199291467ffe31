// Package jsonscan walks the top level of a JSON object without decoding
// its values. The transport uses it to split JSON-RPC messages into members
// and the protocol types to read a discriminator such as "type", where a
// full decode would scan megabytes of payload only to find a few bytes.
//
// The input must already be valid JSON (json.Valid, or produced by
// encoding/json): the scanner trusts it and never reports syntax errors in
// values.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// ErrNotObject reports input that is not a JSON object.
var ErrNotObject = errors.New("jsonscan: not a JSON object")

// Members calls f with each member of the object in b, in order: the key
// (decoded) and the value's raw bytes, which alias b. It stops early when f
// returns false.
func Members(b []byte, f func(key string, value []byte) bool) error {
	return MemberBytes(b, func(key, value []byte) bool { return f(string(key), value) })
}

// MemberBytes is Members with the key as bytes, which alias b unless the
// key had to be decoded; they are valid only during the call. A caller that
// only compares keys (switch string(key)) then allocates nothing.
func MemberBytes(b []byte, f func(key, value []byte) bool) error {
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
			var k string
			if err := json.Unmarshal(b[i:end], &k); err != nil {
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
func skipString(b []byte, i int) int {
	i++
	for {
		// Two memchr-speed searches instead of one byte-at-a-time search
		// for either character: a long string rarely holds a backslash.
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		e := bytes.IndexByte(b[i:i+q], '\\')
		if e < 0 {
			return i + q + 1
		}
		i += e + 2 // a backslash and the character it escapes
	}
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
