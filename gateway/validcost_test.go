package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// unionSchema is a recursive union: each level applies the root from two
// places (allOf's twice, and properties), three times the level above.
const unionSchema = `{"type":"object","properties":{"p":{"$ref":"#"}},"allOf":[{"$ref":"#/$defs/t"},{"$ref":"#/$defs/t"}],"$defs":{"t":{"properties":{"p":{"$ref":"#"}}}}}`

// nested is {"p":{"p":...{}}}, depth deep.
func nested(depth int) string {
	return strings.Repeat(`{"p":`, depth) + "{}" + strings.Repeat("}", depth)
}

func decoded(t *testing.T, s string) any {
	t.Helper()
	v, _, err := decodeExact([]byte(s), "argument", nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidationCost(t *testing.T) {
	g := newCostGraph([]byte(unionSchema))
	if g == nil {
		t.Fatal("no cost model for a schema with references")
	}
	// 3^d applications at depth d: 14 levels took 45 s in jsonschema-go.
	if !g.tooCostly(decoded(t, nested(14))) {
		t.Error("14 levels of a recursive union are not too costly")
	}
	if g.tooCostly(decoded(t, nested(5))) {
		t.Error("5 levels are too costly")
	}
	// A schema without references is a tree, but an application costs
	// what the schema and the value there hold (zz_review_test.go): it is
	// modelled too, and ordinary arguments are cheap.
	if g := newCostGraph([]byte(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`)); g == nil || g.tooCostly(decoded(t, `{"a":"x"}`)) {
		t.Error("no cost model for a schema without references, or a one-member call too costly")
	}
	// The common large call: an array of objects checked through a $ref.
	list := `{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/row"}}},"$defs":{"row":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":"boolean"},"d":{"type":"string"},"e":{"type":"integer"}}}}}`
	row := `{"a":"x","b":1.5,"c":true,"d":"y","e":2}`
	big := `{"items":[` + strings.Repeat(row+",", 19999) + row + `]}`
	if g := newCostGraph([]byte(list)); g == nil || g.tooCostly(decoded(t, big)) {
		t.Errorf("20000 rows through a $ref: model %v, too costly", g != nil)
	}
	// Every keyword that applies a schema is counted: each of these
	// applies the root 2^d times.
	for _, s := range []string{
		`{"anyOf":[{"properties":{"p":{"$ref":"#"}}},{"properties":{"p":{"$ref":"#"}}}]}`,
		`{"oneOf":[{"patternProperties":{"^p$":{"$ref":"#"}}},{"additionalProperties":{"$ref":"#"}}]}`,
		`{"if":{"properties":{"p":{"$ref":"#"}}},"then":{"unevaluatedProperties":{"$ref":"#"}}}`,
		`{"dependentSchemas":{"p":{"properties":{"p":{"$ref":"#"}}}},"properties":{"p":{"$ref":"#"}}}`,
		`{"not":{"properties":{"p":{"$ref":"#/$defs/x"}}},"$defs":{"x":{"properties":{"p":{"$ref":"#"}},"allOf":[{"$ref":"#"}]}}}`,
	} {
		g := newCostGraph([]byte(s))
		if g == nil || !g.tooCostly(decoded(t, nested(40))) {
			t.Errorf("40 levels of %s are not too costly", s)
		}
	}
	// Arrays too.
	arr := `{"items":{"anyOf":[{"$ref":"#"},{"items":{"$ref":"#"}}]},"prefixItems":[{"$ref":"#"}],"contains":{"$ref":"#"}}`
	deep := strings.Repeat("[", 30) + strings.Repeat("]", 30)
	if g := newCostGraph([]byte(arr)); g == nil || !g.tooCostly(decoded(t, deep)) {
		t.Errorf("30 levels of arrays are not too costly")
	}
}

// TestValidationCostRefused: a call whose arguments would take hours to
// check is refused at once, and an output of the same shape is too; a
// shallow call goes through.
func TestValidationCostRefused(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "tree", Version: "1"}, nil)
	ran := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "tree", InputSchema: json.RawMessage(unionSchema)}, ran)
	s.AddTool(&mcp.Tool{Name: "out", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(unionSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(nested(30))}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"s": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	res, code := f.call(t, "s__tree", json.RawMessage(nested(30)))
	if code != CodeInvalidArguments || !strings.Contains(res.TextOf(), "shallower") {
		t.Errorf("30 levels: %s %q", code, res.TextOf())
	}
	if res, code := f.call(t, "s__tree", json.RawMessage(nested(4))); code != CodeOK {
		t.Errorf("4 levels: %s %q", code, res.TextOf())
	}
	res, code = f.call(t, "s__out", json.RawMessage(`{}`))
	if code != CodeOutputSchema || !strings.Contains(res.TextOf(), "nests deep") {
		t.Errorf("output of 30 levels: %s %q", code, res.TextOf())
	}
}

// FuzzValidationCost: a value the model lets through validates; one it
// undercounts would hang the fuzzer (which reports a hang).
func FuzzValidationCost(f *testing.F) {
	f.Add(unionSchema, nested(6))
	f.Add(`{"items":{"anyOf":[{"$ref":"#"},{"items":{"$ref":"#"}}]}}`, `[[[[1]],[[2]]]]`)
	f.Add(`{"$defs":{"a":{"oneOf":[{"$ref":"#"},{"properties":{"x":{"$ref":"#/$defs/a"}}}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `{"x":{"x":{"x":{}}}}`)
	f.Fuzz(func(t *testing.T, schema, value string) {
		if len(schema) > 2000 || len(value) > 4000 {
			return
		}
		r, err := compileSchema([]byte(schema), false)
		if err != nil {
			return
		}
		v, _, err := decodeExact([]byte(value), "member", nil)
		if err != nil {
			return
		}
		if newCostGraph([]byte(schema)).tooCostly(v) {
			return
		}
		_ = r.Validate(v)
	})
}

// BenchmarkValidationCost: what counting adds before jsonschema-go
// validates, for a small call and a large one through a $ref (the anchor
// is Validate itself, in the same run).
func BenchmarkValidationCost(b *testing.B) {
	list := `{"type":"object","properties":{"q":{"type":"string"},"items":{"type":"array","items":{"$ref":"#/$defs/row"}}},"$defs":{"row":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":"boolean"},"d":{"type":"string"},"e":{"type":"integer"}}}}}`
	row := `{"a":"x","b":1.5,"c":true,"d":"y","e":2}`
	r, err := compileSchema([]byte(list), true)
	if err != nil {
		b.Fatal(err)
	}
	g := newCostGraph([]byte(list))
	for _, c := range []struct{ name, args string }{
		{"small", `{"q":"find","items":[` + row + `]}`},
		{"rows1000", `{"items":[` + strings.Repeat(row+",", 999) + row + `]}`},
	} {
		v, _, err := decodeExact([]byte(c.args), "argument", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/count", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if g.tooCostly(v) {
					b.Fatal("too costly")
				}
			}
		})
		b.Run(c.name+"/validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := r.Validate(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
