package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// Meta is the _meta member that requests, results, notifications and many
// objects carry. Numbers decode as json.Number so that ids and progress
// tokens keep their exact text.
type Meta map[string]any

// UnmarshalJSON implements json.Unmarshaler.
func (m *Meta) UnmarshalJSON(b []byte) error {
	// The common case, a valid object, without json.Decoder's copy and
	// double scan; anything else takes the general path and its errors.
	if jsonscan.Valid(b) {
		if obj, ok := decodeMetaMemo(b); ok {
			*m = obj
			return nil
		}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return err
	}
	*m = v
	return nil
}

// ProgressToken returns the request's progress token, or nil.
func (m Meta) ProgressToken() any {
	if m == nil {
		return nil
	}
	return m[MetaProgressToken]
}

// DecodeEntry decodes the entry key into v, reporting whether it was there
// and well-formed.
func (m Meta) DecodeEntry(key string, v any) bool {
	raw, ok := m[key]
	if !ok {
		return false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, v) == nil
}
