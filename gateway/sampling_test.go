package gateway

import (
	"context"
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
