package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// DecodeAny decodes b, which must be valid JSON (see Valid), into an any
// exactly as a json.Decoder with UseNumber decodes into an interface value:
// objects as map[string]any (the last of duplicate keys wins), arrays as
// []any, numbers as json.Number, strings, booleans and nil. It reports false
// for anything it cannot decode that way, so that callers fall back to
// encoding/json and its error.
//
// Why: _meta travels on every request of the 2026-07-28 era and decodes
// into a map (mcp.Meta). Through json.Decoder that cost a copy of the input
// and two scanner passes over it before the maps were built, and was the
// largest single item of a small call's CPU in that era.
func DecodeAny(b []byte) (any, bool) { return decode(b, false) }

// DecodeAnyFloat is DecodeAny with numbers as float64, exactly as
// json.Unmarshal decodes into an interface value; a number float64 cannot
// hold (1e999) reports false, for encoding/json to produce its error.
//
// Why: a tool's structured content decodes into an any (CallToolResult's
// StructuredContent) on every call's result, and json.Unmarshal checked the
// valid member again and reflected on the value before building its map:
// the largest single item of a client's decoding of a small result.
func DecodeAnyFloat(b []byte) (any, bool) { return decode(b, true) }

func decode(b []byte, floats bool) (any, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return nil, false
	}
	v, end, ok := decodeAt(b, i, floats)
	return v, ok && skipSpace(b, end) == len(b)
}

// decodeAt decodes the value that starts at b[i] and returns the index
// just past it. One pass: each byte is read once, however deep the value
// nests (skipping each nested value to find its end, then decoding it,
// cost its size once per level).
func decodeAt(b []byte, i int, floats bool) (v any, end int, ok bool) {
	switch b[i] {
	case '{':
		m := map[string]any{}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return m, i + 1, true
		}
		for i < len(b) && b[i] == '"' {
			kend := skipString(b, i)
			key := b[i+1 : kend-1]
			var k string
			if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
				var err error
				if k, err = decodeKey(b[i:kend]); err != nil {
					return nil, i, false
				}
			} else {
				k = string(key)
			}
			i = skipSpace(b, kend)
			if i >= len(b) || b[i] != ':' {
				return nil, i, false
			}
			if i = skipSpace(b, i+1); i >= len(b) {
				return nil, i, false
			}
			var x any
			if x, i, ok = decodeAt(b, i, floats); !ok {
				return nil, i, false
			}
			m[k] = x
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return m, i + 1, true
			}
			break
		}
		return nil, i, false
	case '[':
		s := []any{}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return s, i + 1, true
		}
		for i < len(b) {
			var x any
			if x, i, ok = decodeAt(b, i, floats); !ok {
				return nil, i, false
			}
			s = append(s, x)
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				if i = skipSpace(b, i+1); i >= len(b) {
					return nil, i, false
				}
				continue
			}
			if i < len(b) && b[i] == ']' {
				return s, i + 1, true
			}
			break
		}
		return nil, i, false
	case '"':
		end = skipString(b, i)
		str, ok := Unquote(b[i:end])
		return str, end, ok
	}
	end = Skip(b, i) // a literal or a number: up to the next delimiter
	if end == i {
		return nil, i, false
	}
	switch t := string(b[i:end]); {
	case t == "true":
		return true, end, true
	case t == "false":
		return false, end, true
	case t == "null":
		return nil, end, true
	case b[i] == 't' || b[i] == 'f' || b[i] == 'n':
		return nil, end, false
	case floats:
		f, err := strconv.ParseFloat(t, 64)
		return f, end, err == nil
	default:
		return json.Number(t), end, true
	}
}
