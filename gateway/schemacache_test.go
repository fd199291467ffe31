package gateway

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestSchemaCacheRebuild: a rebuild of an unchanged surface compiles
// nothing, in any profile; a changed schema is compiled once for all of
// them; a schema that does not compile is not compiled again.
func TestSchemaCacheRebuild(t *testing.T) {
	pol := mustPolicy(t, `{"profiles":{"default":{},"gem":{"target":"gemini"}}}`)
	g, err := New(&Options{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	u := &upstream{g: g, name: "a", state: StateReady, listed: true, tools: []*mcp.Tool{
		{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"y":{"type":"string"}}}`)},
		{Name: "bad", InputSchema: json.RawMessage(`{"type":"string"}`)}, // not an object: withheld
	}}
	g.upsMu.Lock()
	g.ups["a"] = u
	g.upsMu.Unlock()
	setTools := func(tools ...*mcp.Tool) {
		u.mu.Lock()
		u.tools = tools
		u.mu.Unlock()
	}
	compiles := func() int64 { return g.schemas.compiles.Load() }

	g.rebuild()
	if n := compiles(); n != 3 {
		t.Fatalf("first rebuild: %d compiles, want 3 (input, output, bad input)", n)
	}
	if _, err := g.ServerFor("gem"); err != nil { // builds the second profile
		t.Fatal(err)
	}
	g.rebuild()
	g.rebuild()
	if n := compiles(); n != 3 {
		t.Errorf("rebuilds of an unchanged surface in two profiles: %d compiles, want still 3", n)
	}
	views := g.allViews()
	a, b := views[0].surf.Load().tools, views[1].surf.Load().tools
	if a["a__t"] == nil || b["a__t"] == nil || a["a__t"].input == nil || a["a__t"].input != b["a__t"].input {
		t.Errorf("the profiles do not share the compiled input schema")
	}
	if a["a__bad"] == nil || a["a__bad"].Withheld == "" || b["a__bad"].Withheld != a["a__bad"].Withheld {
		t.Errorf("bad: withheld %q and %q, want the same reason", a["a__bad"].Withheld, b["a__bad"].Withheld)
	}

	// A changed input schema is compiled once; the output schema, the
	// same bytes, is not.
	t2 := *u.tools[0]
	t2.InputSchema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	setTools(&t2, u.tools[1])
	g.rebuild()
	if n := compiles(); n != 4 {
		t.Errorf("after a changed input schema: %d compiles, want 4", n)
	}
	if e := g.allViews()[1].surf.Load().tools["a__t"]; e == nil || e.input == nil || e.input.Validate(map[string]any{"x": "s"}) != nil {
		t.Errorf("the changed schema is not the one validating")
	}
	// The same bytes as an output schema are compiled apart: an input
	// schema is held to more (compileSchema).
	t3 := t2
	t3.OutputSchema = t2.InputSchema
	setTools(&t3, u.tools[1])
	g.rebuild()
	if n := compiles(); n != 5 {
		t.Errorf("after an output schema with the bytes of the input one: %d compiles, want 5", n)
	}
}

// TestSchemaCacheBound: a flood of ever new schemas leaves the cache
// within its bounds, and a schema used between them stays compiled.
func TestSchemaCacheBound(t *testing.T) {
	c := newSchemaCache(maxCachedSchemas, maxCachedSchemaBytes)
	steady := []byte(`{"type":"object","properties":{"steady":{}}}`)
	if _, err := c.compile(steady, true); err != nil {
		t.Fatal(err)
	}
	for i := range maxCachedSchemas + 100 {
		if i%100 == 0 {
			c.compile(steady, true) // a rebuild of a steady upstream
		}
		c.compile([]byte(`{"type":"object","properties":{"p`+strconv.Itoa(i)+`":{}}}`), true)
		if n, b := c.len(); n > maxCachedSchemas || b > maxCachedSchemaBytes {
			t.Fatalf("after %d schemas: %d entries of %d bytes, past %d or %d", i+1, n, b, maxCachedSchemas, maxCachedSchemaBytes)
		}
	}
	if n, _ := c.len(); n != maxCachedSchemas {
		t.Errorf("%d entries, want %d", n, maxCachedSchemas)
	}
	before := c.compiles.Load()
	c.compile(steady, true)
	if c.compiles.Load() != before {
		t.Error("the steady schema was evicted by the flood")
	}

	// By bytes: large schemas, few entries.
	const big = 1000
	c = newSchemaCache(maxCachedSchemas, 10*big)
	pad := make([]byte, big)
	for i := range pad {
		pad[i] = ' '
	}
	for i := range 100 {
		s := append([]byte(`{"type":"object","title":"`+strconv.Itoa(i)+`"}`), pad...)
		c.compile(s, true)
		if n, b := c.len(); b > 10*big || n > 10 {
			t.Fatalf("after %d large schemas: %d entries of %d bytes, past %d", i+1, n, b, 10*big)
		}
	}
	// A schema past the whole bound is compiled, not held.
	huge := append([]byte(`{"type":"object"}`), make([]byte, 20*big)...)
	for i := range len(huge) - len(`{"type":"object"}`) {
		huge[len(`{"type":"object"}`)+i] = ' '
	}
	before = c.compiles.Load()
	if _, err := c.compile(huge, true); err != nil {
		t.Fatal(err)
	}
	c.compile(huge, true)
	if c.compiles.Load() != before+2 {
		t.Error("a schema past the byte bound was held")
	}
	if _, b := c.len(); b > 10*big {
		t.Errorf("%d bytes held, past %d", b, 10*big)
	}
}
