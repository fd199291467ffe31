package transport

import (
	"encoding/json"
	"errors"
	"strconv"
)

// ID is a JSON-RPC request id exactly as a peer wrote it: a JSON string or a
// JSON integer of any size. MCP forbids null, fractional, boolean and
// structured ids; ParseID rejects them.
//
// The zero ID is "no id" (a notification, or a reply to an unparseable
// request, which JSON-RPC answers with id null).
type ID struct {
	raw string // the JSON text as received, echoed back byte for byte
	key string // canonical form, so "\u0061" and "a" name the same request
}

// ErrInvalidID reports an id that MCP does not allow.
var ErrInvalidID = errors.New("request id must be a string or an integer")

// ParseID validates raw JSON as an MCP request id.
func ParseID(raw []byte) (ID, error) {
	if len(raw) == 0 {
		return ID{}, ErrInvalidID
	}
	switch c := raw[0]; {
	case c == '"':
		// Exactly one string: json.Unmarshal alone would also take white
		// space after it, which Raw would then echo.
		var s string
		if raw[len(raw)-1] != '"' || len(raw) < 2 {
			return ID{}, ErrInvalidID
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return ID{}, ErrInvalidID
		}
		return ID{raw: string(raw), key: "s" + s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if !isJSONInteger(raw) {
			return ID{}, ErrInvalidID
		}
		return intID(string(raw)), nil
	}
	return ID{}, ErrInvalidID
}

// isJSONInteger reports whether b is -?(0|[1-9][0-9]*), the integer subset
// of JSON numbers. Fractions and exponents are not ids, even when they
// denote a whole number, because echoing them back is ambiguous.
func isJSONInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IntID returns the id for a non-negative integer.
func IntID(n uint64) ID {
	var buf [24]byte
	k := string(strconv.AppendUint(append(buf[:0], 'n'), n, 10))
	return ID{raw: k[1:], key: k}
}

// StringID returns the id for a string.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b), key: "s" + s}
}

// IsZero reports whether id is absent.
func (id ID) IsZero() bool { return id.raw == "" }

// Raw returns the id's JSON text as the peer wrote it, or null for the zero ID.
func (id ID) Raw() json.RawMessage {
	if id.raw == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(id.raw)
}

// Key returns a canonical string that is equal for ids that denote the same
// request, for use as a map key.
func (id ID) Key() string { return id.key }

// String returns the id's JSON text.
func (id ID) String() string { return string(id.Raw()) }

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.Raw(), nil }

// UnmarshalJSON implements json.Unmarshaler; it accepts only valid MCP ids.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := ParseID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// intID is the ID of the JSON integer s, with the key and the raw text in
// one string: an id is made for every message.
func intID(s string) ID {
	k := "n" + s
	return ID{raw: k[1:], key: k}
}
