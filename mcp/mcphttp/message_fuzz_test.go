package mcphttp

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
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
		if mt, ok := lastFold(p, "_meta"); ok && len(mt) > 0 && mt[0] == '{' {
			_ = json.Unmarshal(mt, &meta)
		}
	}
	return top, params, meta, true
}

// lastFold returns the member of the object obj that encoding/json decodes
// into a struct field named key: the last whose key equals it ignoring
// case. The server decodes params into structs, so that is the _meta it
// reads.
func lastFold(obj []byte, key string) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if _, err := d.Token(); err != nil {
		return nil, false
	}
	var out json.RawMessage
	found := false
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		if s, _ := k.(string); strings.EqualFold(s, key) {
			out, found = v, true
		}
	}
	return out, found
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
		`{"id":1,"method":"tools/call","params":{"name":"a","NAME":"b","_meta":{"k":1},"_Meta":{"k":2}}}`,
		`{"id":1,"method":"tools/call","params":{"Name":"a","n\u0061ME":"b","_\u004deta":{"k":3}}}`,
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
		// The name the headers are checked against is the one the
		// server decodes.
		var server struct {
			Name string `json:"name"`
		}
		if name, ok := m.nameValue(); ok && m.method == "tools/call" && json.Unmarshal(top["params"], &server) == nil && name != server.Name {
			t.Fatalf("name %q, the server's %q, in %q", name, server.Name, body)
		}
	})
}

// When ambiguousArgument lets arguments through, every way a tool may read
// an annotated argument gives the value its header was checked against:
// encoding/json into a struct (case folded, the last), into a map (exact,
// the last), and a parser that takes the first exact key.
func FuzzAmbiguousArgument(f *testing.F) {
	for _, s := range []string{
		`{"region":"eu"}`, `{"region":"eu","region":"us"}`, `{"REGION":"us"}`,
		`{"region":"eu","Region":"us"}`, `{"regio\u006e":"eu","note":1}`, `{"note":{"region":1}}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	headers := map[string]string{"region": "Region"}
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) {
			return // parseMessage refuses the body first
		}
		if _, bad := ambiguousArgument(args, headers); bad {
			return
		}
		var folded struct {
			Region json.RawMessage `json:"region"`
		}
		var exact map[string]json.RawMessage
		if json.Unmarshal(args, &folded) != nil || json.Unmarshal(args, &exact) != nil {
			return
		}
		var first json.RawMessage
		d := json.NewDecoder(bytes.NewReader(args))
		_, _ = d.Token()
		for d.More() {
			k, _ := d.Token()
			var v json.RawMessage
			if d.Decode(&v) != nil {
				return
			}
			if k == "region" && first == nil {
				first = v
			}
		}
		if !bytes.Equal(folded.Region, exact["region"]) || !bytes.Equal(first, exact["region"]) {
			t.Fatalf("%s: folded %s, exact %s, first %s", args, folded.Region, exact["region"], first)
		}
	})
}
