package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// BenchmarkRebuildSteady is one rebuild of an unchanged surface of 50
// tools with schemas of about 6 KB each, in three profiles of three
// targets: what an upstream flooding list_changed costs per rebuild.
func BenchmarkRebuildSteady(b *testing.B) {
	pol, err := ParsePolicy([]byte(`{"profiles":{"default":{},"strict":{"target":"openai-strict"},"gem":{"target":"gemini"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	g, err := New(&Options{Policy: pol})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	var tools []*mcp.Tool
	for i := range 50 {
		var props []string
		for j := range 20 {
			props = append(props, fmt.Sprintf(`"p%d":{"type":"string","description":%q,"enum":["a%d","b","c","d","e","f"]}`, j, strings.Repeat("words ", 30), i), fmt.Sprintf(`"n%d":{"type":"number","minimum":0,"maximum":100,"multipleOf":0.5}`, j))
		}
		in := `{"type":"object","properties":{` + strings.Join(props, ",") + `,"o":{"type":"object","properties":{"x":{"type":"integer"}}}},"required":["p0"]}`
		out := `{"type":"object","properties":{` + strings.Join(props[:10], ",") + `}}`
		tools = append(tools, &mcp.Tool{Name: fmt.Sprint("t", i), InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)})
	}
	g.upsMu.Lock()
	g.ups["a"] = &upstream{g: g, name: "a", state: StateReady, listed: true, tools: tools}
	g.upsMu.Unlock()
	for _, p := range []string{"strict", "gem"} {
		if _, err := g.ServerFor(p); err != nil {
			b.Fatal(err)
		}
	}
	g.rebuild()
	for _, v := range g.allViews() {
		if e := v.surf.Load().tools["a__t0"]; e == nil || e.Withheld != "" {
			b.Fatalf("profile %s: tool a__t0 is not offered: %+v", v.set.Load().profNm, e)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.rebuild()
	}
}
