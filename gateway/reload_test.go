package gateway

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// TestReload: a new policy and server set apply while serving; unchanged
// servers (a child process, an in-process server) keep running; sessions
// get list_changed.
func TestReload(t *testing.T) {
	a := upstreamServer()
	b := mcp.NewServer(&mcp.Implementation{Name: "b"}, nil)
	b.AddTool(&mcp.Tool{Name: "only_b", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "b"}}}, nil
		})
	cfg := hostileConfig(t)
	copts, changed := changedClient()
	f := start(t, &Options{Config: cfg, Servers: map[string]*mcp.Server{"a": a, "b": b}}, copts)
	f.waitListed(t, changed, "a__echo", "b__only_b", "hostile__tree")
	hostile := f.g.upstream("hostile")
	hostile.mu.Lock()
	proc := hostile.proc
	hostile.mu.Unlock()
	pid := proc.Pid()
	ua := f.g.upstream("a")

	c := mcp.NewServer(&mcp.Implementation{Name: "c"}, nil)
	c.AddTool(&mcp.Tool{Name: "only_c", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "c"}}}, nil
		})
	pol := mustPolicy(t, `{"profiles":{"default":{"deny":["a/echo"]}}}`)
	// The same configuration, parsed again: equal, not identical.
	cfg2 := hostileConfig(t)
	if err := f.g.Reload(&Options{Config: cfg2, Servers: map[string]*mcp.Server{"a": a, "c": c}, Policy: pol}); err != nil {
		t.Fatal(err)
	}
	listed := f.waitListed(t, changed, "c__only_c")
	if listed["b__only_b"] != nil || listed["a__echo"] != nil || listed["a__add"] == nil {
		t.Errorf("after reload: %v", keys(listed))
	}
	if _, code := f.call(t, "a__echo", map[string]any{"text": "x"}); code != CodeDenied {
		t.Errorf("echo after reload: %s", code)
	}
	if _, code := f.call(t, "b__only_b", nil); code != CodeUnknownTool {
		t.Errorf("removed server: %s", code)
	}
	if f.g.upstream("hostile") != hostile || proc.Pid() != pid {
		t.Error("the unchanged child was restarted")
	}
	if f.g.upstream("a") != ua {
		t.Error("the unchanged in-process server was replaced")
	}
	if res, code := f.call(t, "c__only_c", nil); code != CodeOK || res.TextOf() != "c" {
		t.Errorf("new server: %s %+v", code, res)
	}

	// A bad policy changes nothing.
	if err := f.g.Reload(&Options{Servers: map[string]*mcp.Server{"a": a}, Policy: &Policy{Tools: map[string]*ToolRule{"a/read": {PathArgs: []string{"p"}}}}}); err == nil {
		t.Fatal("a policy with pathArgs and no roots was applied")
	}
	if f.g.upstream("c") == nil {
		t.Error("a failed reload changed the servers")
	}
	// A changed command restarts that server.
	cfg3 := hostileConfig(t)
	cfg3.Servers["hostile"].Args = []string{"-test.run=^$"}
	if err := f.g.Reload(&Options{Config: cfg3, Servers: map[string]*mcp.Server{"a": a, "c": c}, Policy: pol}); err != nil {
		t.Fatal(err)
	}
	if f.g.upstream("hostile") == hostile {
		t.Error("a changed server was kept")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := f.g.waitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		t.Error("the replaced child still runs")
	}
}

func keys(m map[string]*mcp.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
