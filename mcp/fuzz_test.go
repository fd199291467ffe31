package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The seed corpora are under testdata/fuzz/<FuzzName>; "go test" runs them,
// "go test -fuzz=FuzzDecodeContent ./mcp/" explores further.

// FuzzDecodeContent checks that decoding any bytes as a content block never
// panics, and that whatever decodes encodes, and decodes to the same
// encoding again (decode, encode, decode, encode is stable).
func FuzzDecodeContent(f *testing.F) {
	f.Add([]byte(`{"type":"text","text":"hi"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeContent(data)
		if err != nil {
			return
		}
		b1, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("encoding the decoded %T: %v", c, err)
		}
		c2, err := decodeContent(b1)
		if err != nil {
			t.Fatalf("decoding our own encoding %s: %v", b1, err)
		}
		if c2.contentType() != c.contentType() {
			t.Fatalf("type %q became %q", c.contentType(), c2.contentType())
		}
		b2, err := json.Marshal(c2)
		if err != nil {
			t.Fatalf("encoding again: %v", err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatalf("unstable encoding:\n%s\n%s", b1, b2)
		}
	})
}

// FuzzCallToolResult is FuzzDecodeContent for whole tool results.
func FuzzCallToolResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}],"isError":false}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r CallToolResult
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		b1, err := json.Marshal(&r)
		if err != nil {
			t.Fatalf("encoding the decoded result: %v", err)
		}
		var r2 CallToolResult
		if err := json.Unmarshal(b1, &r2); err != nil {
			t.Fatalf("decoding our own encoding %s: %v", b1, err)
		}
		if len(r2.Content) != len(r.Content) || r2.IsError != r.IsError || r2.IsErrorSet != r.IsErrorSet {
			t.Fatalf("changed by a round trip: %s", b1)
		}
		b2, err := json.Marshal(&r2)
		if err != nil {
			t.Fatalf("encoding again: %v", err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatalf("unstable encoding:\n%s\n%s", b1, b2)
		}
	})
}
