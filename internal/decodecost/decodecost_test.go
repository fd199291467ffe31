package decodecost_test

import (
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/decodecost"
	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// A decoder is one way the client or the server decodes a message's
// result or params.
type decoder struct {
	name   string
	decode func(raw []byte) any // returns what it built, to keep it alive
}

// into decodes raw into a new value of mk as the client decodes a result
// (its decodeValid): a json.Unmarshaler is handed the bytes directly.
func into(mk func() any) func([]byte) any {
	return func(raw []byte) any {
		v := mk()
		if u, ok := v.(json.Unmarshaler); ok {
			_ = u.UnmarshalJSON(raw)
		} else {
			_ = json.Unmarshal(raw, v)
		}
		return v
	}
}

var decoders = []decoder{
	// The client's results.
	{"CallToolResult", into(func() any { return new(mcp.CallToolResult) })},
	{"ListToolsResult", into(func() any { return new(mcp.ListToolsResult) })},
	{"ListResourcesResult", into(func() any { return new(mcp.ListResourcesResult) })},
	{"ListResourceTemplatesResult", into(func() any { return new(mcp.ListResourceTemplatesResult) })},
	{"ListPromptsResult", into(func() any { return new(mcp.ListPromptsResult) })},
	{"ReadResourceResult", into(func() any { return new(mcp.ReadResourceResult) })},
	{"GetPromptResult", into(func() any { return new(mcp.GetPromptResult) })},
	{"InitializeResult", into(func() any { return new(mcp.InitializeResult) })},
	{"any", into(func() any { return new(any) })},
	// The server's params: a tools/call's whole params (its _meta a Meta
	// map), and its arguments as an untyped tool and schema validation by
	// jsonschema-go take them, into a map[string]any behind an any.
	{"CallToolParams", into(func() any { return new(mcp.CallToolParams) })},
	{"arguments", func(raw []byte) any {
		var args any = map[string]any{}
		_ = json.Unmarshal(raw, &args)
		return args
	}},
	// A _meta entry's value, as Meta decodes it. (Meta falls back to
	// encoding/json's Decoder, which copies its input as it reads, only
	// where jsonscan's decoder gives up, which valid JSON in valid UTF-8,
	// all the transports pass on, never makes it.)
	{"DecodeAny", func(raw []byte) any { v, _ := jsonscan.DecodeAny(raw); return v }},
	{"DecodeAnyFloat", func(raw []byte) any { v, _ := jsonscan.DecodeAnyFloat(raw); return v }},
}

// amplifying are shapes of results and params whose decoded size is many
// times their bytes, n units of each.
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
		// A tools/call's params: arguments, and a _meta, of empty
		// objects; arguments of many members, and of nested maps.
		`{"name":"t","arguments":{"a":[` + rep(`{}`) + `]}}`,
		`{"name":"t","arguments":{},"_meta":{"progressToken":1,"a":[` + rep(`{}`) + `]}}`,
		`{"name":"t","arguments":{` + rep(`"k":{"":[]}`) + `}}`,
		`{"name":"t","arguments":{"a":[` + rep(`{"b":{"c":{"d":null}}}`) + `]}}`,
		`{"name":"t","arguments":{"a":[` + rep(`1.5e300`) + `]}}`,
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

// checkEstimate fails t if decoding raw in any of the ways the client and
// the server do allocates more than Estimate says it may, or if Estimate
// charges a byte more than MaxPerByte.
func checkEstimate(t *testing.T, raw []byte) {
	t.Helper()
	est := decodecost.Estimate(raw)
	if est > decodecost.MaxPerByte*int64(len(raw)) {
		t.Fatalf("%.200s (%d bytes) estimated at %d, more than MaxPerByte (%d) a byte", raw, len(raw), est, decodecost.MaxPerByte)
	}
	for _, d := range decoders {
		// Once first: the first decode into a type fills encoding/json's
		// caches of it, once per process.
		_ = d.decode(raw)
		// The least of a few runs: the count is the whole process's, and
		// what other goroutines (the fuzzing engine's) allocate meanwhile
		// only adds to it.
		got := uint64(math.MaxUint64)
		for range 3 {
			var v any
			got = min(got, allocated(func() { v = d.decode(raw) }))
			runtime.KeepAlive(v)
			if int64(got) <= est+estimateSlack {
				break
			}
		}
		if int64(got) > est+estimateSlack {
			t.Fatalf("decoding %.200s (%d bytes) as %s allocated %d bytes, estimated %d", raw, len(raw), d.name, got, est)
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

// FuzzEstimate: whatever a message's shape, decoding it into any of the
// types the client decodes results into, or the server a request's params,
// allocates no more than its estimate (beyond a constant), so that
// MaxResultMemory and MaxParamsMemory let nothing through that takes more.
func FuzzEstimate(f *testing.F) {
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

// Over does not scan what cannot reach the bound, nor anything when there
// is none, and refuses only past it.
func TestOver(t *testing.T) {
	empties := []byte(`[` + strings.Repeat(`{},`, 999) + `{}]`)
	est := decodecost.Estimate(empties)
	for _, c := range []struct {
		limit     int64
		wantEst   int64
		wantOver  bool
		scanned   bool
		rationale string
	}{
		{-1, 0, false, false, "no bound"},
		{decodecost.MaxPerByte * int64(len(empties)), 0, false, false, "too short to reach it"},
		{est, est, false, true, "at the bound"},
		{est - 1, est, true, true, "past it"},
	} {
		gotEst, gotOver := decodecost.Over(empties, c.limit)
		if gotEst != c.wantEst || gotOver != c.wantOver {
			t.Errorf("%s: Over(%d) = %d, %v; want %d, %v", c.rationale, c.limit, gotEst, gotOver, c.wantEst, c.wantOver)
		}
	}
	if n := testing.AllocsPerRun(10, func() { decodecost.Over(empties, 1) }); n != 0 {
		t.Errorf("Over allocated %v times, want none", n)
	}
}
