package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

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
		if got := string(upstreamSampling([]byte(in))); got != want {
			t.Errorf("%s\nbecame %s\nwant   %s", in, got, want)
		}
	}
	in := `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"number","default":0.10000000000000000001}}},"_Meta":{"mcp.x/y":1}}`
	if got, want := string(upstreamElicitation([]byte(in))), strings.Replace(in, `{"mcp.x/y":1}`, `{}`, 1); got != want {
		t.Errorf("%s\nbecame %s\nwant   %s", in, got, want)
	}
}
