package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// loopSchemas loop at one place in the value: jsonschema-go recursed
// until the stack overflowed, which ends the process, on the first call.
var loopSchemas = []string{
	`{"type":"object","$ref":"#"}`,
	`{"type":"object","allOf":[{"$ref":"#"}]}`,
	`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
	`{"type":"object","properties":{"x":{"not":{"$ref":"#/properties/x"}}}}`,
	`{"type":"object","ALLOF":[{"$REF":"#"}]}`,
	`{"type":"object","dependentSchemas":{"x":{"$ref":"#"}}}`,
	`{"type":"object","if":{"$ref":"#"},"then":{}}`,
}

// fineSchemas recurse through a part of the value, which ends.
var fineSchemas = []string{
	`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
	`{"type":"object","$defs":{"n":{"anyOf":[{"type":"number"},{"type":"array","items":{"$ref":"#/$defs/n"}}]}},"properties":{"x":{"$ref":"#/$defs/n"}}}`,
	`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"string"}}}`,
	`{"type":"object","examples":[{"$ref":"#"}]}`,
}

func TestRefLoop(t *testing.T) {
	for _, s := range loopSchemas {
		if refLoop([]byte(s)) == "" {
			t.Errorf("no loop found in %s", s)
		}
	}
	for _, s := range fineSchemas {
		if loop := refLoop([]byte(s)); loop != "" {
			t.Errorf("a loop (%s) found in %s", loop, s)
		}
	}
}

// TestRefLoopWithheld: a tool whose input schema loops was listed (the
// cleaner cuts recursion) and a call to it crashed the facade. It is
// withheld now, and its call refused with denied; a schema that
// recurses through the value serves as before.
func TestRefLoopWithheld(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "loop", Version: "1"}, nil)
	ran := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	}
	for i, sc := range loopSchemas {
		s.AddTool(&mcp.Tool{Name: "loop" + string(rune('a'+i)), InputSchema: json.RawMessage(sc)}, ran)
	}
	for i, sc := range fineSchemas {
		s.AddTool(&mcp.Tool{Name: "fine" + string(rune('a'+i)), InputSchema: json.RawMessage(sc)}, ran)
	}
	f := start(t, &Options{Servers: map[string]*mcp.Server{"s": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for i := range loopSchemas {
		name := "s__loop" + string(rune('a'+i))
		res, code := f.call(t, name, json.RawMessage(`{"x":1}`))
		if code != CodeDenied {
			t.Errorf("%s: %s %q, want denied", name, code, res.TextOf())
		}
	}
	for i := range fineSchemas {
		name := "s__fine" + string(rune('a'+i))
		res, code := f.call(t, name, json.RawMessage(`{}`))
		if code != CodeOK {
			t.Errorf("%s: %s %q", name, code, res.TextOf())
		}
	}
	for _, st := range f.g.Plan() {
		if st.Server == "s" && strings.HasPrefix(st.Tool, "loop") && !strings.Contains(st.Status, "loop") {
			t.Errorf("%s: plan says %q", st.Tool, st.Status)
		}
	}
}

// FuzzRefLoop: a schema the facade compiles validates in finite time: a
// loop refLoop missed would overflow the stack and end the fuzzer.
func FuzzRefLoop(f *testing.F) {
	for _, s := range append(append([]string{}, loopSchemas...), fineSchemas...) {
		f.Add(s, `{"x":1,"a":{"a":{}}}`)
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		if len(schema) > 2000 || len(args) > 200 {
			return
		}
		r, err := compileSchema([]byte(schema), true)
		if err != nil {
			return
		}
		v, _, err := decodeExact([]byte(args), "argument", nil)
		if err != nil {
			return
		}
		_ = r.Validate(v)
	})
}
