package gateway

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// TestReservedMetaNotForwarded: an upstream writes _meta keys that the
// protocol reserves (io.modelcontextprotocol/related-task: the task a
// message belongs to; serverInfo: the server that answers; progressToken:
// which request progress is about) into its result and into the
// questions it asks through the facade. Those keys are the facade's hop
// to write, not the upstream's: a host would file the question under
// another task, or take the result for another server's. They are
// removed; other _meta keys pass.
func TestReservedMetaNotForwarded(t *testing.T) {
	var mu sync.Mutex
	var seen []mcp.Meta
	record := func(m mcp.Meta) {
		mu.Lock()
		seen = append(seen, m)
		mu.Unlock()
	}
	opts := &client.Options{ProtocolVersion: mcp.LatestLegacyVersion,
		OnSampling: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			record(p.Meta)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}, nil
		},
		OnElicitation: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			record(p.Meta)
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
		},
	}
	f := start(t, &Options{Config: askerConfig(t)}, opts)
	res, code := f.call(t, "ask__claims", nil)
	if code != CodeOK || res.TextOf() != "claimed" {
		t.Fatalf("%s %q", code, res.TextOf())
	}
	record(res.Meta)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("saw %d _meta, want 3 (elicitation, sampling, result)", len(seen))
	}
	for i, m := range seen {
		for _, k := range []string{mcp.MetaRelatedTask, mcp.MetaServerInfo, "progressToken"} {
			if _, ok := m[k]; ok {
				t.Errorf("_meta %d: the upstream's %q reached the client: %v", i, k, m)
			}
		}
		if m["com.example/kept"] != true {
			t.Errorf("_meta %d: an ordinary key was removed: %v", i, m)
		}
	}
}

// TestReservedMetaNotForwardedInProcess: the same for an in-process
// upstream's tool result, resources/read and prompts/get results, and
// with the facade's own key among them.
func TestReservedMetaNotForwardedInProcess(t *testing.T) {
	meta := func() mcp.Meta {
		return mcp.Meta{mcp.MetaRelatedTask: map[string]any{"taskId": "t"}, "progressToken": "p", MetaKey: map[string]any{"code": "denied"},
			"dev.mcp.tools/x": 1, "com.example/kept": true}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "claims", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}, InputSchema: []byte(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, ResultEnvelope: mcp.ResultEnvelope{Meta: meta()}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "mem://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://r", Text: mcp.Ptr("r")}}, ResultEnvelope: mcp.ResultEnvelope{Meta: meta()}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "p"}}}, ResultEnvelope: mcp.ResultEnvelope{Meta: meta()}}, nil
	})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"c": s}}, nil)
	ctx := context.Background()
	res, code := f.call(t, "c__t", nil)
	if code != CodeOK {
		t.Fatalf("call: %s %+v", code, res)
	}
	read, err := f.c.ReadResource(ctx, "mem://r")
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := f.c.GetPrompt(ctx, "c__p", nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, m := range map[string]mcp.Meta{"tools/call": res.Meta, "resources/read": read.Meta, "prompts/get": prompt.Meta} {
		for _, k := range []string{mcp.MetaRelatedTask, "progressToken", MetaKey, "dev.mcp.tools/x"} {
			if _, ok := m[k]; ok {
				t.Errorf("%s: the upstream's %q reached the client: %v", what, k, m)
			}
		}
		if m["com.example/kept"] != true {
			t.Errorf("%s: an ordinary key was removed: %v", what, m)
		}
	}
}

// FuzzReservedMetaKey checks the decision on any key: it does not depend
// on case, every key with a label "mcp" or "modelcontextprotocol" in its
// prefix is reserved, and upstreamMeta removes exactly the reserved keys,
// leaving its input as it was.
func FuzzReservedMetaKey(f *testing.F) {
	for _, k := range []string{"io.modelcontextprotocol/related-task", "progressToken", "com.example/x", "io.winbridge/gateway",
		"IO.MCP.dev/x", "mcp/x", "a.b/c/d", "", "/", "x.mcpx/y", " progressToken ", "io.winbridge.x/y"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		r := reservedMetaKey(k)
		if r != reservedMetaKey(strings.ToUpper(k)) || r != reservedMetaKey(strings.ToLower(k)) {
			t.Fatalf("%q: the decision depends on case", k)
		}
		if prefix, _, ok := strings.Cut(k, "/"); ok {
			for _, l := range strings.Split(strings.ToLower(prefix), ".") {
				if (l == "mcp" || l == "modelcontextprotocol") && !r {
					t.Fatalf("%q: a key of the protocol's prefix is not reserved", k)
				}
			}
		}
		in := mcp.Meta{k: 1, "com.example/kept": 2}
		out, removed := upstreamMeta(in)
		if len(in) != 2 && k != "com.example/kept" {
			t.Fatalf("the input changed: %v", in)
		}
		if removed != r {
			t.Fatalf("%q: removed %v, reserved %v", k, removed, r)
		}
		for key := range out {
			if reservedMetaKey(key) {
				t.Fatalf("%q left in %v", key, out)
			}
		}
		if out["com.example/kept"] != 2 || (!r && out[k] == nil) {
			t.Fatalf("%q: an ordinary key was removed: %v", k, out)
		}
	})
}
