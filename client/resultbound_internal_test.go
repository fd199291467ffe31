package client

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// resultTypes are what the client decodes results into.
var resultTypes = []func() any{
	func() any { return new(mcp.CallToolResult) },
	func() any { return new(mcp.ListToolsResult) },
	func() any { return new(mcp.ListResourcesResult) },
	func() any { return new(mcp.ListResourceTemplatesResult) },
	func() any { return new(mcp.ListPromptsResult) },
	func() any { return new(mcp.ReadResourceResult) },
	func() any { return new(mcp.GetPromptResult) },
	func() any { return new(mcp.InitializeResult) },
	func() any { return new(any) },
}

// amplifying are result shapes whose decoded size is many times their
// bytes, n units of each.
func amplifying(n int) []string {
	rep := func(s string) string { return strings.TrimSuffix(strings.Repeat(s+",", n), ",") }
	return []string{
		`{"content":[],"_meta":{"a":[` + rep(`{}`) + `]}}`,
		`{"content":[],"structuredContent":[` + rep(`{"a":1}`) + `]}`,
		`{"content":[],"structuredContent":[` + rep(`[0]`) + `]}`,
		`{"content":[],"structuredContent":[` + rep(`""`) + `]}`,
		`{"content":[],"structuredContent":[` + rep(`null`) + `]}`,
		`{"content":[` + rep(`{"type":"text","text":"","annotations":{}}`) + `]}`,
		`{"content":[` + rep(`{"type":"resource_link","uri":"","name":"","icons":[{}]}`) + `]}`,
		`{"content":[` + rep(`{"type":"resource","resource":{"uri":"","text":"\n"}}`) + `]}`,
		`{"content":[{"type":"resource_link","uri":"","name":"","icons":[` + rep(`{}`) + `]}]}`,
		`{"tools":[{"name":"","inputSchema":{},"icons":[` + rep(`{}`) + `]}]}`,
		`{"tools":[` + rep(`{"inputSchema":{"a":{}}}`) + `]}`,
		`{"resources":[` + rep(`{}`) + `],"resourceTemplates":[` + rep(`{}`) + `]}`,
		`{"prompts":[` + rep(`{"arguments":[{}]}`) + `]}`,
		`{"messages":[` + rep(`{"role":"user","content":{"type":"text","text":""}}`) + `]}`,
		`{"contents":[` + rep(`{"uri":"","_meta":{}}`) + `]}`,
		`{"capabilities":{"experimental":{"a":[` + rep(`{"a":{"b":{}}}`) + `]}}}`,
		`[` + rep(`{"abcdefgh":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`) + `]`,
		`{"a":"` + strings.Repeat(`\u00e9x`, n) + `"}`,
		// Long keys no struct knows, one with an escape, in a block the
		// fast decoder gives up on after the others: each decoding layer
		// and each walk of the block's members copies them again.
		`{"content":[` + rep(`{"type":"text","text":"","annotations":{}}`) + `,{"typ":"text","annot\u00da` + strings.Repeat("7", 4000) + `ations":{}}]}`,
		`{"content":[` + rep(`{"type":"text","text":"","annotations":{}}`) + `,{"typ":"text","annotÚ` + strings.Repeat("7", 4000) + `ations":{}}]}`,
	}
}

// estimateSlack is what a decode may allocate whatever the input's size:
// the decoder's state, an error's text.
const estimateSlack = 4 << 10

// allocated is what f allocates, as the runtime counts it.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// checkEstimate fails t if decoding raw into any of the result types
// allocates more than estimateDecoded says it may.
func checkEstimate(t *testing.T, raw []byte) {
	t.Helper()
	est := estimateDecoded(raw)
	for _, mk := range resultTypes {
		// Once first: the first decode into a type fills encoding/json's
		// caches of it, once per process.
		_ = decodeValid(raw, mk())
		v := mk()
		got := allocated(func() { _ = decodeValid(raw, v) })
		runtime.KeepAlive(v)
		if int64(got) > est+estimateSlack {
			t.Fatalf("decoding %.200s (%d bytes) into %T allocated %d bytes, estimated %d", raw, len(raw), v, got, est)
		}
	}
}

// The estimate bounds what the amplifying shapes take decoded, at a size
// where each unit's cost dominates.
func TestEstimateBoundsAmplifyingShapes(t *testing.T) {
	for _, s := range amplifying(20000) {
		if !json.Valid([]byte(s)) {
			t.Fatalf("not JSON: %.80s", s)
		}
		checkEstimate(t, []byte(s))
	}
}

// FuzzResultEstimate: whatever a result's shape, decoding it into any of
// the types the client decodes results into allocates no more than its
// estimate (beyond a constant), so that MaxResultMemory lets no result
// through that takes more.
func FuzzResultEstimate(f *testing.F) {
	for _, s := range amplifying(50) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !jsonscan.ValidMessage(raw) {
			return // the transport passes only valid JSON in valid UTF-8
		}
		checkEstimate(t, raw)
	})
}

// BenchmarkCheckResult is the check of a tool result of 8 MiB of text, the
// large result of BenchmarkPipeToolCall, and of a large list of tools.
func BenchmarkCheckResult(b *testing.B) {
	c := &Client{}
	tool := `{"name":"read_file","description":"Reads a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`
	for _, r := range []struct{ name, raw string }{
		{"text8MiB", `{"content":[{"type":"text","text":"` + strings.Repeat("x", 8<<20) + `"}]}`},
		{"tools1MiB", `{"tools":[` + strings.TrimSuffix(strings.Repeat(tool+",", (1<<20)/len(tool)), ",") + `]}`},
	} {
		b.Run(r.name, func(b *testing.B) {
			raw := []byte(r.raw)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.checkResult("tools/call", raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
