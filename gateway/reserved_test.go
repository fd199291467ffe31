package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// TestReservedMetaNotForwarded: an upstream writes _meta keys that the
// protocol reserves (io.modelcontextprotocol/related-task: the task a
// message belongs to; serverInfo: the server that answers; progressToken:
// which request progress is about) into its result and into the
// questions it asks through the facade. Those keys are the facade's hop
// to write, not the upstream's: a host would file the question under
// another task, or take the result for another server's. They are
// removed, also from the messages, blocks and tools of a sampling
// request; other _meta keys pass.
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
			if len(p.Messages) == 1 && len(p.Messages[0].Content) == 1 && len(p.Tools) == 1 {
				record(p.Messages[0].Meta)
				if b, ok := p.Messages[0].Content[0].(*mcp.TextContent); ok {
					record(b.Meta)
				}
				record(p.Tools[0].Meta)
			}
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
	if len(seen) != 6 {
		t.Fatalf("saw %d _meta, want 6 (elicitation, sampling: its own, a message's, a block's, a tool's; result)", len(seen))
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

// TestReservedMetaNotForwardedNested: the reserved _meta keys are removed
// wherever an upstream can write _meta in what the facade forwards, not
// only at the top level: the content blocks of a tool result (and an
// embedded resource's contents, the blocks of a sampling tool_result,
// blocks of a type the facade does not know, which it forwards as sent),
// the contents of resources/read, the message content of prompts/get,
// and the listed resources, templates and prompts. structuredContent is
// data, not _meta: it is forwarded as sent, a "_meta" member in it too.
func TestReservedMetaNotForwardedNested(t *testing.T) {
	meta := func() mcp.Meta {
		return mcp.Meta{mcp.MetaRelatedTask: map[string]any{"taskId": "t"}, "progressToken": "p", MetaKey: map[string]any{"code": "ok"},
			"dev.mcp.tools/x": 1, "com.example/kept": true}
	}
	const structured = `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"data"}},"n":9007199254740993}`
	s := mcp.NewServer(&mcp.Implementation{Name: "claims", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}, InputSchema: []byte(`{"type":"object"}`), Meta: meta()},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "x", Meta: meta()},
				&mcp.ImageContent{Data: "AA==", MIMEType: "image/png", Meta: meta()},
				&mcp.AudioContent{Data: "AA==", MIMEType: "audio/wav", Meta: meta()},
				&mcp.ResourceLink{URI: "mem://l", Name: "l", Meta: meta()},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://e", Text: mcp.Ptr("e"), Meta: meta()}, Meta: meta()},
				&mcp.ToolResultContent{ToolUseID: "u", Content: []mcp.Content{&mcp.TextContent{Text: "y", Meta: meta()}}, Meta: meta()},
				&mcp.UnknownContent{Type: "x-later", Raw: []byte(`{"type":"x-later","n":12345678901234567890,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"},` +
					`"progressToken":"p","io.winbridge/gateway":{"code":"ok"},"dev.mcp.tools/x":1,"com.example/kept":true}}`)},
			}, StructuredContent: json.RawMessage(structured)}, nil
		})
	s.AddResource(&mcp.Resource{URI: "mem://r", Name: "r", Meta: meta()}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://r", Text: mcp.Ptr("r"), Meta: meta()}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://t/{x}", Name: "t", Meta: meta()}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, errors.New("unused")
	})
	s.AddPrompt(&mcp.Prompt{Name: "p", Meta: meta()}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "p", Meta: meta()}},
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://e", Text: mcp.Ptr("e"), Meta: meta()}, Meta: meta()}},
		}}, nil
	})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"c": s}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raws := map[string]json.RawMessage{}
	for _, r := range []struct {
		method string
		params any
		kept   int // how many _meta carry the ordinary key
	}{
		{"tools/call", map[string]any{"name": "c__t"}, 9},
		{"resources/read", map[string]any{"uri": "mem://r"}, 1},
		{"prompts/get", map[string]any{"name": "c__p"}, 3},
		{"tools/list", nil, 0},
		{"resources/list", nil, 1},
		{"resources/templates/list", nil, 1},
		{"prompts/list", nil, 1},
	} {
		var raw json.RawMessage
		if err := f.c.Call(ctx, r.method, r.params, &raw); err != nil {
			t.Fatalf("%s: %v", r.method, err)
		}
		raws[r.method] = raw
		if r.method == "tools/call" {
			sc, _ := jsonscan.Member(raw, "structuredContent")
			if string(sc) != structured {
				t.Errorf("structuredContent changed: %s", sc)
			}
			raw = bytes.Replace(raw, sc, nil, 1)
			if !bytes.Contains(raw, []byte(`"n":12345678901234567890`)) {
				t.Errorf("the block of an unknown type changed: %s", raw)
			}
		}
		for _, k := range []string{mcp.MetaRelatedTask, "progressToken", MetaKey, "dev.mcp.tools/x"} {
			if bytes.Contains(raw, []byte(`"`+k+`"`)) {
				t.Errorf("%s: the upstream's %q reached the client: %s", r.method, k, raw)
			}
		}
		if n := bytes.Count(raw, []byte(`"com.example/kept":true`)); n != r.kept {
			t.Errorf("%s: the ordinary key is there %d times, want %d: %s", r.method, n, r.kept, raw)
		}
	}
}

// FuzzUpstreamRawBlock checks the removal from a block forwarded as
// received against a decoded reference: the reserved keys go from every
// member named "_meta" in any case (and from a tool_result's blocks', an
// embedded resource's contents'),
// the rest reads the same, numbers keep their text, and a block with
// nothing to remove keeps its bytes.
func FuzzUpstreamRawBlock(f *testing.F) {
	for _, s := range []string{
		`{"type":"x","_meta":{"progressToken":1,"com.example/k":2}}`,
		`{"type":"x","\u005fmeta":{"io.modelcontextprotocol/related-task":{},"a":1e400}}`,
		`{"type":"x","_META":{"io.winbridge/gateway":1},"_meta":{"k":12345678901234567890}}`,
		`{"type":"tool_result","content":[{"type":"text","text":"a","_meta":{"mcp.dev/x":1,"y":2}},{"type":"tool_result","content":[{"_meta":{"progressToken":3}}]}]}`,
		`{"type":"x","content":[{"_meta":{"progressToken":3}}],"_meta":"not an object"}`,
		`{"type":"x","_meta":{"pro\u0067ressToken":1}, "n" : 1.50}`,
		`{"type":"resource","resource":{"uri":"a","_Meta":{"progressToken":1,"k":1}},"_meta":{}}`,
		`{"type":"tool_r\u0065sult","content":[{"type":"resource","resource":{"_meta":{"mcp/x":1}}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !jsonscan.Valid(raw) || raw[0] != '{' || dupIn(raw) != "" {
			return
		}
		out, changed := upstreamRawBlock(raw)
		if !changed {
			if !bytes.Equal(out, raw) {
				t.Fatalf("unchanged, but %s became %s", raw, out)
			}
		} else if !jsonscan.Valid(out) {
			t.Fatalf("%s became invalid: %s", raw, out)
		}
		decode := func(b []byte) any {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			return v
		}
		want := decode(raw)
		var clean func(v any) bool
		clean = func(v any) bool {
			obj, _ := v.(map[string]any)
			removed := false
			for k, mv := range obj {
				switch {
				case strings.EqualFold(k, "_meta"):
					if m, ok := mv.(map[string]any); ok {
						for mk := range m {
							if reservedMetaKey(mk) {
								delete(m, mk)
								removed = true
							}
						}
					}
				case obj["type"] == "tool_result" && strings.EqualFold(k, "content"):
					list, _ := mv.([]any)
					for _, e := range list {
						removed = clean(e) || removed
					}
				case obj["type"] == "resource" && strings.EqualFold(k, "resource"):
					if r, ok := mv.(map[string]any); ok {
						for rk, rv := range r {
							if strings.EqualFold(rk, "_meta") {
								removed = clean(map[string]any{"_meta": rv}) || removed
							}
						}
					}
				}
			}
			return removed
		}
		if removed := clean(want); removed != changed {
			t.Fatalf("%s: removed %v, reported %v", raw, removed, changed)
		}
		if got := decode(out); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s became %s, want %v", raw, out, want)
		}
	})
}
