package jsonscan

import "encoding/json"

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
func DecodeAny(b []byte) (any, bool) {
	i := skipSpace(b, 0)
	end := len(b)
	for end > i && isSpace(b[end-1]) {
		end--
	}
	if i >= end {
		return nil, false
	}
	return decodeValue(b[i:end])
}

func decodeValue(b []byte) (any, bool) {
	switch b[0] {
	case '{':
		m := map[string]any{}
		ok := true
		err := MembersBytes(b, func(k, v []byte) bool {
			var x any
			if x, ok = decodeValue(v); ok {
				m[string(k)] = x
			}
			return ok
		})
		return m, ok && err == nil
	case '[':
		s := []any{}
		ok := true
		err := Elements(b, func(v []byte) bool {
			var x any
			if x, ok = decodeValue(v); ok {
				s = append(s, x)
			}
			return ok
		})
		return s, ok && err == nil
	case '"':
		return Unquote(b)
	case 't':
		return true, string(b) == "true"
	case 'f':
		return false, string(b) == "false"
	case 'n':
		return nil, string(b) == "null"
	}
	return json.Number(b), true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
