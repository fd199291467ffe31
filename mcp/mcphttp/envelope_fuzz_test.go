package mcphttp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzPeekEnvelope checks peekEnvelope against encoding/json on every
// valid message encoding/json decodes into the same fields.
func FuzzPeekEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`,
		`{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"?"}}`,
		`{"method":null,"id":null,"params":{"progressToken":null}}`,
		`{"method":"a","method":"b","params":{"progressToken":1,"progressToken":2}}`,
		`{"\u006d\u0065thod":"x\u00e9","params":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var ref struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Params struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"params"`
		}
		if !json.Valid(msg) || json.Unmarshal(msg, &ref) != nil {
			return // the server writes only what encoding/json decodes
		}
		got := peekEnvelope(msg)
		if !bytes.Equal(bytes.TrimSpace(got.ID), bytes.TrimSpace(ref.ID)) ||
			!bytes.Equal(bytes.TrimSpace(got.ProgressToken), bytes.TrimSpace(ref.Params.ProgressToken)) ||
			(got.Method == nil) != (ref.Method == nil) ||
			(got.Method != nil && *got.Method != *ref.Method) {
			t.Fatalf("peekEnvelope(%q) = id %q method %v token %q; encoding/json: id %q method %v token %q",
				msg, got.ID, got.Method, got.ProgressToken, ref.ID, ref.Method, ref.Params.ProgressToken)
		}
	})
}
