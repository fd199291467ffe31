package gateway

import (
	"encoding/json"
	"strconv"
	"strings"
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
	if err := c.prepare(steady, true).err; err != nil {
		t.Fatal(err)
	}
	for i := range maxCachedSchemas + 100 {
		if i%100 == 0 {
			c.prepare(steady, true) // a rebuild of a steady upstream
		}
		c.prepare([]byte(`{"type":"object","properties":{"p`+strconv.Itoa(i)+`":{}}}`), true)
		if n, b := c.len(); n > maxCachedSchemas || b > maxCachedSchemaBytes {
			t.Fatalf("after %d schemas: %d entries of %d bytes, past %d or %d", i+1, n, b, maxCachedSchemas, maxCachedSchemaBytes)
		}
	}
	if n, _ := c.len(); n != maxCachedSchemas {
		t.Errorf("%d entries, want %d", n, maxCachedSchemas)
	}
	before := c.compiles.Load()
	c.prepare(steady, true)
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
		c.prepare(s, true)
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
	if err := c.prepare(huge, true).err; err != nil {
		t.Fatal(err)
	}
	c.prepare(huge, true)
	if c.compiles.Load() != before+2 {
		t.Error("a schema past the byte bound was held")
	}
	if _, b := c.len(); b > 10*big {
		t.Errorf("%d bytes held, past %d", b, 10*big)
	}
}

// TestSchemaCachePasses: the facade's own passes over a schema (the
// multipleOf split, numbers, names, the flat form, the prose cut) run
// once per distinct schema, and the cleaning once per target, however
// many rebuilds and profiles read them; profiles of one target share the
// listed schema.
func TestSchemaCachePasses(t *testing.T) {
	pol := mustPolicy(t, `{"profiles":{"default":{},"b":{},"gem":{"target":"gemini"}}}`)
	g, err := New(&Options{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	long := strings.Repeat("d", 2*maxDescriptionBytes)
	u := &upstream{g: g, name: "a", state: StateReady, listed: true, tools: []*mcp.Tool{
		{Name: "t", InputSchema: json.RawMessage(`{"type":"object","description":"` + long + `","properties":{"x":{"type":"number","multipleOf":0.01},"m":{"type":"string","maximum":9007199254740993}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","description":"` + long + `","properties":{"y":{"type":"number","multipleOf":0.5}}}`)},
	}}
	g.upsMu.Lock()
	g.ups["a"] = u
	g.upsMu.Unlock()
	for _, p := range []string{"b", "gem"} {
		if _, err := g.ServerFor(p); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		g.rebuild()
	}
	if n := g.schemas.compiles.Load(); n != 2 {
		t.Errorf("5 rebuilds of 3 profiles: %d schemas read, want 2 (input, output)", n)
	}
	if n := g.schemas.cleans.Load(); n != 2 {
		t.Errorf("5 rebuilds of 3 profiles: %d cleanings, want 2 (anthropic, gemini)", n)
	}
	var es []*exposed
	for _, v := range g.allViews() {
		e := v.surf.Load().tools["a__t"]
		if e == nil || e.Withheld != "" || e.inMul == nil || e.outMul == nil || e.inNames == nil || e.inNear == nil {
			t.Fatalf("tool a__t in profile %s: %+v", v.set.Load().profNm, e)
		}
		if len(e.def.OutputSchema) >= len(u.tools[0].OutputSchema) {
			t.Errorf("the output schema's description is not cut: %d bytes", len(e.def.OutputSchema))
		}
		es = append(es, e)
	}
	for _, e := range es[1:] {
		if e.inMul != es[0].inMul || e.outMul != es[0].outMul || e.inNames != es[0].inNames {
			t.Error("the profiles do not share what was read from the schemas")
		}
	}
	byTarget := map[Target][]byte{}
	for i, v := range g.allViews() {
		tg := v.set.Load().profile.Target
		if b, ok := byTarget[tg]; ok && &b[0] != &es[i].def.InputSchema[0] {
			t.Errorf("two %s profiles list copies of one cleaned schema", tg)
		}
		byTarget[tg] = es[i].def.InputSchema
	}
}

// TestSchemaCacheBoundListed: the cleaned forms count towards the bytes
// bound, which holds whichever targets ask.
func TestSchemaCacheBoundListed(t *testing.T) {
	const bound = 20000
	c := newSchemaCache(maxCachedSchemas, bound)
	for i := range 200 {
		raw := []byte(`{"type":"object","properties":{"p` + strconv.Itoa(i) + `":{"type":["string","null"],"description":"` + strings.Repeat("x", 200) + `"}}}`)
		p := c.prepare(raw, true)
		for _, tg := range targetNames() {
			if l := c.listedFor(p, raw, Target(tg)); l.err != nil {
				t.Fatalf("%s: %v", tg, l.err)
			}
		}
		n, b := c.len()
		if b > bound {
			t.Fatalf("after %d schemas: %d bytes held, past %d", i+1, b, bound)
		}
		sum := 0
		for el := c.lru.Front(); el != nil; el = el.Next() {
			sum += el.Value.(*preparedSchema).size
		}
		if sum != b || n != c.lru.Len() {
			t.Fatalf("after %d schemas: %d bytes counted, entries hold %d", i+1, b, sum)
		}
	}
	if n := c.cleans.Load(); n != 200*int64(len(targetNames())) {
		t.Errorf("%d cleanings, want one per schema and target", n)
	}
}
