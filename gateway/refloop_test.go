package gateway

import (
	"context"
	"encoding/json"
	"slices"
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

// unfollowedSchemas compiled, passed the loop check of an earlier
// release, and overflowed the stack on the first call: their references
// resolve where that check, which walked JSON Pointers over the schema
// as written, did not look. They are refused now as references the
// facade cannot follow.
var unfollowedSchemas = []string{
	// A nested $id: "#" is that schema, not the root.
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$id":"http://x.test/a","$ref":"#"}}}`,
	// An anchor.
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$anchor":"x","$ref":"#x"}}}`,
	// The root's absolute $id.
	`{"$id":"http://x.test/r","type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"http://x.test/r#/$defs/a"}}}`,
	// "$defs" and "$DEFS": encoding/json merges them into one field, a map
	// keeps them apart, and the looping one is the one that counts.
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"number"}},"$DEFS":{"a":{"$ref":"#/$defs/a"}}}`,
	// The long s folds to s for encoding/json, not for strings.ToLower.
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"$defſ":{"a":{"$ref":"#/$defs/a"}}}`,
	// A percent escape, which url.Parse decodes in the fragment.
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a%62"}},"$defs":{"ab":{"$ref":"#/$defs/ab"},"a%62":{"type":"number"}}}`,
	// A dynamic reference to a dynamic anchor.
	`{"type":"object","$dynamicAnchor":"m","properties":{"p":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$dynamicRef":"#m"}}}`,
}

// fineSchemas recurse through a part of the value, which ends.
var fineSchemas = []string{
	`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
	`{"type":"object","$defs":{"n":{"anyOf":[{"type":"number"},{"type":"array","items":{"$ref":"#/$defs/n"}}]}},"properties":{"x":{"$ref":"#/$defs/n"}}}`,
	`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"string"}}}`,
	`{"type":"object","examples":[{"$ref":"#"}]}`,
	// A reference to a boolean schema.
	`{"type":"object","properties":{"x":{"$ref":"#/$defs/f"}},"$defs":{"f":true}}`,
	// $id at the root only, and anchors nothing refers to.
	`{"$id":"http://x.test/r","type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$anchor":"y","type":"number"}}}`,
	// A nested $id without references.
	`{"type":"object","properties":{"x":{"$id":"http://x.test/a","type":"number"}}}`,
	// An anchor-like string in a value, not a schema.
	`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"default":{"$ref":"#nowhere","$id":"x"}}}}`,
}

func TestRefLoop(t *testing.T) {
	for _, s := range loopSchemas {
		if err := checkRefs([]byte(s)); err == nil || !strings.Contains(err.Error(), "loop") {
			t.Errorf("no loop found in %s: %v", s, err)
		}
	}
	for _, s := range unfollowedSchemas {
		if _, err := compileSchema([]byte(s), true); err == nil {
			t.Errorf("compiled %s", s)
		}
	}
	for _, s := range fineSchemas {
		if err := checkRefs([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
		r, err := compileSchema([]byte(s), true)
		if err != nil {
			t.Errorf("%s does not compile: %v", s, err)
			continue
		}
		v, _, _ := decodeExact([]byte(`{"a":{"a":{}},"x":[1,[2]]}`), "argument", nil)
		_ = r.Validate(v) // ends
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
	for i, sc := range unfollowedSchemas {
		s.AddTool(&mcp.Tool{Name: "unfol" + string(rune('a'+i)), InputSchema: json.RawMessage(sc)}, ran)
		// As an output schema too: the result's validation overflowed
		// the stack as well.
		s.AddTool(&mcp.Tool{Name: "out" + string(rune('a'+i)), InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(sc)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"p":1}`)}, nil
			})
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
	for i := range unfollowedSchemas {
		name := "s__unfol" + string(rune('a'+i))
		res, code := f.call(t, name, json.RawMessage(`{"p":1}`))
		// The percent-escape schema also loops ("ab" refers to itself):
		// which refusal is found first depends on map order.
		if code != CodeDenied || !strings.Contains(res.TextOf(), "the facade does not follow them") && !strings.Contains(res.TextOf(), "cannot follow") && !strings.Contains(res.TextOf(), "loop") {
			t.Errorf("%s: %s %q, want denied", name, code, res.TextOf())
		}
		// An output schema that does not compile is not listed, and the
		// result goes out unchecked, as for any such schema.
		name = "s__out" + string(rune('a'+i))
		if res, code := f.call(t, name, json.RawMessage(`{}`)); code != CodeOK {
			t.Errorf("%s: %s %q", name, code, res.TextOf())
		}
	}
	tools, err := f.c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if strings.HasPrefix(tl.Name, "s__out") && len(tl.OutputSchema) > 0 {
			t.Errorf("%s lists output schema %s", tl.Name, tl.OutputSchema)
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
	for _, s := range slices.Concat(loopSchemas, unfollowedSchemas, fineSchemas) {
		f.Add(s, `{"x":1,"a":{"a":{}},"p":1}`)
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
