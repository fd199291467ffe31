package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestLoneSurrogateRefused: "\ud800" passed validation as U+FFFD (an
// enum of "\ufffd", a pattern) and reached the upstream as the escape,
// which JavaScript reads as a lone surrogate: not what was checked. A
// whole pair, or the character itself, goes through as before. Results
// likewise; and a structured result member that equals a declared
// output property only ignoring case is refused, as arguments are.
func TestLoneSurrogateRefused(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "u", Version: "1"}, nil)
	var got []string
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"t":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got = append(got, string(req.Params.Arguments))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	out := map[string]string{
		"lone":  `{"t":"\udc00"}`,
		"alias": `{"STATUS":"bad"}`,
		"fine":  `{"status":"ok","t":"\ud83d\ude00"}`,
	}
	for name, content := range out {
		s.AddTool(&mcp.Tool{Name: "out_" + name, InputSchema: json.RawMessage(`{"type":"object"}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"status":{"enum":["ok"]},"t":{"type":"string"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: json.RawMessage(content)}, nil
			})
	}
	f := start(t, &Options{Servers: map[string]*mcp.Server{"u": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	for _, args := range []string{`{"t":"\ud800"}`, `{"t":"a\udfff"}`, `{"\ud800":1}`, `{"t":"\ud83d"}`} {
		res, code := f.call(t, "u__echo", json.RawMessage(args))
		if code != CodeInvalidArguments || !strings.Contains(res.TextOf(), "surrogate") {
			t.Errorf("%s: %s %q", args, code, res.TextOf())
		}
	}
	for _, args := range []string{`{"t":"\ud83d\ude00"}`, `{"t":"😀"}`, `{"t":"\\ud800"}`} {
		if res, code := f.call(t, "u__echo", json.RawMessage(args)); code != CodeOK {
			t.Errorf("%s: %s %q", args, code, res.TextOf())
		}
	}
	if len(got) != 3 {
		t.Errorf("the upstream got %q, want the three fine calls", got)
	}
	if res, code := f.call(t, "u__out_lone", json.RawMessage(`{}`)); code != CodeUpstreamMalformed || !strings.Contains(res.TextOf(), "surrogate") {
		t.Errorf("lone surrogate result: %s %q", code, res.TextOf())
	}
	if res, code := f.call(t, "u__out_alias", json.RawMessage(`{}`)); code != CodeOutputSchema || !strings.Contains(res.TextOf(), "only in case") {
		t.Errorf("case alias result: %s %q", code, res.TextOf())
	}
	if res, code := f.call(t, "u__out_fine", json.RawMessage(`{}`)); code != CodeOK {
		t.Errorf("fine result: %s %q", code, res.TextOf())
	}
}
