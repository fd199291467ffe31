package gateway

import (
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

func TestCodeOf(t *testing.T) {
	upstreamError := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such file"}}}
	cut := &mcp.CallToolResult{ResultEnvelope: mcp.ResultEnvelope{Meta: withCutMeta(nil, map[string]any{"cut": []any{}})}}
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want Code
	}{
		{"refusal", refusal(CodeDenied, "denied"), CodeDenied},
		{"refusal of a tool with an outputSchema", &mcp.CallToolResult{IsError: true, ResultEnvelope: refusal(CodeTimeout, "slow").ResultEnvelope}, CodeTimeout},
		{"the upstream's own isError", upstreamError, CodeOK},
		{"a result the caps cut", cut, CodeOK},
		{"a code in _meta of a result that is no error", &mcp.CallToolResult{ResultEnvelope: refusal(CodeDenied, "x").ResultEnvelope}, CodeOK},
		{"nil", nil, ""},
	} {
		if got := CodeOf(tc.res); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
