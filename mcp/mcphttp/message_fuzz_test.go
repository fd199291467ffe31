package mcphttp

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
)

// parseReference is parseMessage's split as encoding/json does it, which
// the scanner-based parseMessage must match on every input it accepts.
func parseReference(body []byte) (top, params, meta map[string]json.RawMessage, ok bool) {
	if json.Unmarshal(body, &top) != nil {
		return nil, nil, nil, false
	}
	if p, ok := top["params"]; ok && len(p) > 0 && p[0] == '{' {
		_ = json.Unmarshal(p, &params)
		if mt, ok := params["_meta"]; ok && len(mt) > 0 && mt[0] == '{' {
			_ = json.Unmarshal(mt, &meta)
		}
	}
	return top, params, meta, true
}

func sameMembers(a, b map[string]json.RawMessage) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return maps.EqualFunc(a, b, func(x, y json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(x), bytes.TrimSpace(y)) })
}

func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"method":"a","method":"b","params":{"_meta":{"k":1,"k":2}}}`,
		`{"\u006dethod":"x","id":2,"params":{"n\u0061me":"y"}}`,
		"{\"method\":\"x\",\"params\":{\"\xff\":1}}",
		` [ {"method":"x"} ]`,
		`{"id":null,"method":"x","params":null}`,
		`{"id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"_meta":{"x":1,"y":2,"x":3}}}`,
		`{"id":1,"method":"m","params":{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, e := parseMessage(body)
		top, params, meta, ok := parseReference(body)
		if e != nil {
			return // refusals are checked by the handler's tests
		}
		if !ok {
			t.Fatalf("parseMessage accepted what encoding/json refuses: %q", body)
		}
		if !sameMembers(m.params.asMap(), params) || !sameMembers(m.meta.asMap(), meta) {
			t.Fatalf("split differs from encoding/json on %q:\nparams %v / %v\nmeta %v / %v", body, m.params, params, m.meta, meta)
		}
		var method string
		if raw, ok := top["method"]; ok {
			_ = json.Unmarshal(raw, &method)
		}
		if m.method != method {
			t.Fatalf("method %q, encoding/json %q, in %q", m.method, method, body)
		}
	})
}
