package mcphttp

import (
	"encoding/json"
	"testing"
)

// asMap is o as encoding/json decodes an object into a map: the last of
// duplicate keys wins. Nil for no members, as for an absent object.
func (o rawObject) asMap() map[string]json.RawMessage {
	if len(o) == 0 {
		return nil
	}
	m := make(map[string]json.RawMessage, len(o))
	for _, mem := range o {
		m[string(mem.key)] = mem.value
	}
	return m
}

// objectOf is m as a rawObject, in no particular order.
func objectOf(m map[string]json.RawMessage) rawObject {
	var o rawObject
	for k, v := range m {
		o = append(o, rawMember{[]byte(k), v})
	}
	return o
}

// TestParseMessageMembers checks the split into params and _meta where
// they share the message's inline storage and where they overflow it:
// neither may overwrite the other, and the last of duplicate keys wins.
func TestParseMessageMembers(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        string
		nParams     int
		nMeta       int
		wantProgTok string
	}{
		{"small", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"p","a":1}}}`, 3, 2, `"p"`},
		{"meta overflows", `{"id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"_meta":{"progressToken":7,"x":1,"y":2,"z":3,"w":4}}}`, 7, 5, `7`},
		{"params overflow", `{"id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"_meta":{"progressToken":"q"}}}`, 12, 1, `"q"`},
		{"duplicates", `{"id":1,"id":2,"method":"a","method":"m","params":{"_meta":{"progressToken":1},"_meta":{"progressToken":2,"progressToken":3}}}`, 2, 2, `3`},
		{"escaped keys", `{"id":1,"method":"m","params":{"_met\u0061":{"progress\u0054oken":"e"}}}`, 1, 1, `"e"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, e := parseMessage([]byte(tc.body))
			if e != nil {
				t.Fatal(e.err.Message)
			}
			if len(m.params) != tc.nParams || len(m.meta) != tc.nMeta {
				t.Fatalf("params %d, meta %d members; want %d, %d", len(m.params), len(m.meta), tc.nParams, tc.nMeta)
			}
			tok, ok := m.meta.get("progressToken")
			if !ok || string(tok) != tc.wantProgTok {
				t.Fatalf("progressToken %s %v, want %s", tok, ok, tc.wantProgTok)
			}
			_, top, _, _ := parseReference([]byte(tc.body))
			if !sameMembers(m.params.asMap(), top) {
				t.Fatalf("params %v, encoding/json %v", m.params.asMap(), top)
			}
		})
	}
}
