package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// TestSamplingContextNotWidened: a sampling request's includeContext
// "thisServer" or "allServers" asks the client to add what it holds of
// the asking server, or of all, to the prompt. Through the facade "this
// server" is every upstream, so an upstream could have the user's model
// read it the arguments and results of other upstreams' tools. The
// facade forwards such a request with includeContext "none".
func TestSamplingContextNotWidened(t *testing.T) {
	var mu sync.Mutex
	var got []string
	opts := &client.Options{ProtocolVersion: mcp.LatestLegacyVersion,
		OnSampling: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			got = append(got, p.IncludeContext)
			mu.Unlock()
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}, nil
		},
	}
	f := start(t, &Options{Config: askerConfig(t)}, opts)
	for _, tool := range []string{"ask__sample_thisServer", "ask__sample_allServers"} {
		if res, code := f.call(t, tool, nil); code != CodeOK || res.TextOf() != "sampled" {
			t.Fatalf("%s: %s %q", tool, code, res.TextOf())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, ic := range got {
		if ic != "" && ic != "none" {
			t.Errorf("the client was asked to include context %q", ic)
		}
	}
	if len(got) != 2 {
		t.Errorf("asked %d times, want 2", len(got))
	}
}

// The questions of the asker's tool "exact" and the answers of
// TestForwardedNumbersExact's client: numbers float64 does not hold, in a
// tool_use block's input, a request's metadata, a form's bounds and
// defaults, and the answers.
const (
	exactSampling = `{"messages":[{"role":"user","content":[{"type":"tool_use","id":"u","name":"t",` +
		`"input":{"n":12345678901234567890123,"f":0.10000000000000000001}},{"type":"text","text":"hi","_meta":{"progressToken":3,"com.example/kept":1}}]}],` +
		`"maxTokens":5,"metadata":{"big":18446744073709551617,"dec":1.000000000000000000001},"temperature":0.7000000000000000001,` +
		`"includeContext":"thisServer","_meta":{"progressToken":1,"com.example/kept":2}}`
	exactElicitation = `{"message":"ok?","requestedSchema":{"type":"object","properties":{` +
		`"n":{"type":"integer","minimum":12345678901234567890,"maximum":12345678901234567899,"default":12345678901234567891},` +
		`"f":{"type":"number","default":0.10000000000000000001}}},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`
	exactSampled  = `{"role":"assistant","model":"m","content":{"type":"tool_use","id":"v","name":"t","input":{"n":98765432109876543210987}},"stopReason":"toolUse"}`
	exactElicited = `{"action":"accept","content":{"n":12345678901234567893,"f":0.30000000000000000001}}`
)

// TestForwardedNumbersExact: an upstream's sampling and elicitation
// requests, and the client's answers, were decoded into structs on the
// way and re-encoded with float64 numbers: 12345678901234567890123 in a
// tool_use input, a form's minimum 12345678901234567890 or the value the
// user gave reached the other side rounded. They pass as encoded now,
// changed only where the facade must: includeContext is "none", and the
// reserved _meta keys are gone, at the top level and in a block.
func TestForwardedNumbersExact(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	record := func(b json.RawMessage) {
		mu.Lock()
		asked = append(asked, string(b))
		mu.Unlock()
	}
	opts := &client.Options{ProtocolVersion: mcp.LatestLegacyVersion,
		OnSamplingRaw: func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			record(p)
			return json.RawMessage(exactSampled), nil
		},
		OnElicitationRaw: func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
			record(p)
			return json.RawMessage(exactElicited), nil
		},
	}
	f := start(t, &Options{Config: askerConfig(t)}, opts)
	res, code := f.call(t, "ask__exact", nil)
	if code != CodeOK {
		t.Fatalf("%s %q", code, res.TextOf())
	}
	if want := exactSampled + "\n" + exactElicited; res.TextOf() != want {
		t.Errorf("the upstream got the answers\n%s\nwant\n%s", res.TextOf(), want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("the client was asked %d times, want 2", len(asked))
	}
	wantSampling := strings.NewReplacer(`"thisServer"`, `"none"`, `"progressToken":3,`, ``, `"progressToken":1,`, ``).Replace(exactSampling)
	wantElicitation := strings.Replace(exactElicitation, `{"io.modelcontextprotocol/related-task":{"taskId":"t"}}`, `{}`, 1)
	if asked[0] != wantSampling {
		t.Errorf("the client was asked to sample\n%s\nwant\n%s", asked[0], wantSampling)
	}
	if asked[1] != wantElicitation {
		t.Errorf("the client was asked to elicit\n%s\nwant\n%s", asked[1], wantElicitation)
	}
}

// TestUpstreamSamplingInPlace: what the facade changes in a sampling
// request it forwards as encoded, with member names in any case or
// escaped (encoding/json reads them into the same fields), and nothing
// else.
func TestUpstreamSamplingInPlace(t *testing.T) {
	for in, want := range map[string]string{
		`{"INCLUDECONTEXT":"allServers","includeContext":"none","messages":[],"maxTokens":1}`: `{"INCLUDECONTEXT":"none","includeContext":"none","messages":[],"maxTokens":1}`,
		`{"includeContext":"","messages":[] , "maxTokens":1.0}`:                               `{"includeContext":"","messages":[] , "maxTokens":1.0}`,
		`{"_META":{"progressToken":1},"messages":[{"role":"user","content":{"type":"text","text":"x","\u005fmeta":{"mcp/x":1,"k":2}}}],` +
			`"tools":[{"name":"t","inputSchema":{"default":1e999999},"_meta":{"io.winbridge/gateway":1}}],"maxTokens":1}`: `{"_META":{},"messages":[{"role":"user","content":{"type":"text","text":"x","\u005fmeta":{"k":2}}}],` +
			`"tools":[{"name":"t","inputSchema":{"default":1e999999},"_meta":{}}],"maxTokens":1}`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","toolUseId":"u","content":[{"type":"resource","resource":{"uri":"a","_meta":{"progressToken":1}}}]}]}],"maxTokens":1}`: `{"messages":[{"role":"user","content":[{"type":"tool_result","toolUseId":"u","content":[{"type":"resource","resource":{"uri":"a","_meta":{}}}]}]}],"maxTokens":1}`,
	} {
		got, err := upstreamSampling([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("%s\nbecame %s (%v)\nwant   %s", in, got, err, want)
		}
	}
	in := `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"number","default":0.10000000000000000001}}},"_Meta":{"mcp.x/y":1}}`
	if got, want := string(upstreamElicitation([]byte(in))), strings.Replace(in, `{"mcp.x/y":1}`, `{}`, 1); got != want {
		t.Errorf("%s\nbecame %s\nwant   %s", in, got, want)
	}
}

// nestedToolResult is a tool_result block with levels tool_results in
// it, one in another, each with pad bytes of _meta, around a text block
// with a reserved _meta key. It nests 2*levels+3 deep.
func nestedToolResult(levels, pad int) string {
	var b strings.Builder
	p := strings.Repeat("x", pad)
	for range levels + 1 {
		b.WriteString(`{"type":"tool_result","toolUseId":"u","_meta":{"k":"` + p + `"},"content":[`)
	}
	b.WriteString(`{"type":"text","text":"x","_meta":{"progressToken":1}}`)
	for range levels + 1 {
		b.WriteString(`]}`)
	}
	return b.String()
}

// deepSamplingParams is a sampling request of one message whose block
// is nestedToolResult(levels, pad).
func deepSamplingParams(levels, pad int) string {
	return `{"messages":[{"role":"user","content":[` + nestedToolResult(levels, pad) + `]}],"maxTokens":1}`
}

// TestUpstreamSamplingDepth: the reserved _meta keys were looked for in
// each tool_result level of a sampling message again, with no bound on
// the levels, where a tool result's blocks may nest 64 deep: 10 MB of
// tool_results nested 5000 deep cost minutes of CPU. A block nested
// deeper than 64 is refused, whatever its type, and at once.
func TestUpstreamSamplingDepth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool // forwarded
	}{
		{deepSamplingParams(30, 0), true}, // 63 deep
		{deepSamplingParams(31, 0), false},
		{`{"messages":[{"role":"user","content":` + nestedToolResult(31, 0) + `}],"maxTokens":1}`, false}, // one block, not a list
		{`{"messages":[{"role":"user","content":{"type":"text","text":"x","_meta":{"k":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}}}],"maxTokens":1}`, false},
		{`{"messages":[{"role":"user","content":{"type":"text","text":"x","_meta":{"k":` + strings.Repeat("[", 62) + strings.Repeat("]", 62) + `}}}],"maxTokens":1}`, true},
		{`{"MESSAGES":[{"role":"user","CONTENT":[{"type":"text","text":"x"},` + nestedToolResult(40, 0) + `]}],"maxTokens":1}`, false},
	} {
		out, err := upstreamSampling([]byte(tc.in))
		if got := err == nil; got != tc.want {
			t.Errorf("%.80s…: forwarded %v (%v), want %v", tc.in, got, err, tc.want)
		}
		if err == nil && strings.Contains(string(out), "progressToken") {
			t.Errorf("%.80s…: forwarded with its reserved key", tc.in)
		}
		if err != nil && !strings.Contains(err.Error(), "deeper than 64 levels") {
			t.Errorf("refused with %q, which does not say why", err)
		}
	}
	// 10 MiB nested as deep as a JSON decoder allows is refused in the
	// time of 64 brackets, not read once per level.
	deep := []byte(deepSamplingParams(4900, 2000))
	start := time.Now()
	if _, err := upstreamSampling(deep); err == nil {
		t.Fatal("10 MiB of nested tool_results forwarded")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing 10 MiB of nested tool_results took %v", d)
	}
}

// TestDeepSamplingRefused: through the facade, an upstream's sampling
// request of tool_results nested past 64 levels is refused and the
// client is never asked; 10 MiB of them are refused in moments (the
// client's decoding of them, before the facade's walk, cost minutes as
// well), and 63 levels still go through.
func TestDeepSamplingRefused(t *testing.T) {
	var asked atomic.Int64
	f := start(t, &Options{Config: askerConfig(t)}, askingClient(&asked))
	for _, tc := range []struct{ tool, want string }{
		{"ask__sample_deep", "deeper than 64 levels"},
		{"ask__sample_deep65", "deeper than 64 levels"},
		{"ask__sample_deep_meta", "deeper than 64 levels"},
		{"ask__sample_deep63", "sampled"},
	} {
		begin := time.Now()
		res, code := f.call(t, tc.tool, nil)
		if code != CodeOK || !strings.Contains(res.TextOf(), tc.want) {
			t.Errorf("%s: %s %.200q, want %q", tc.tool, code, res.TextOf(), tc.want)
		}
		if d := time.Since(begin); d > 20*time.Second {
			t.Errorf("%s took %v", tc.tool, d)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the client was asked %d times, want 1", n)
	}
}
