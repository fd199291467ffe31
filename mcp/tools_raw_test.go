package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// TestAddToolRaw: the listed schema is not enforced (nor compiled: a
// schema jsonschema-go refuses registers), and the handler sees the
// arguments as sent.
func TestAddToolRaw(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "raw"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"$ref":"http://elsewhere/x"}`)
	var got json.RawMessage
	s.AddToolRaw(&mcp.Tool{Name: "t", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = req.Params.Arguments
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	a, b := transport.Pipe(nil)
	s.Connect(a)
	c, err := client.Connect(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 1 || string(tools[0].InputSchema) != string(schema) {
		t.Fatalf("%v %v", err, tools)
	}
	res, err := c.CallTool(context.Background(), "t", json.RawMessage(`{"n":"5"}`))
	if err != nil || res.IsError || string(got) != `{"n":"5"}` {
		t.Fatalf("%v %+v %s", err, res, got)
	}
}

func TestUnknownToolHandler(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "raw"}, &mcp.ServerOptions{
		UnknownTool: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no " + req.Params.Name}}}, nil
		},
	})
	a, b := transport.Pipe(nil)
	s.Connect(a)
	c, err := client.Connect(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "nope", nil)
	if err != nil || !res.IsError || res.TextOf() != "no nope" {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestCallToolFor: a proxy in the same process calls another server's
// tool for its own request; validation applies and the tool sees the proxy's request.
func TestCallToolFor(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up"}, nil)
	type in struct {
		N int `json:"n"`
	}
	mcp.AddTool(up, &mcp.Tool{Name: "double"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(2 * a.N)}}}, nil, nil
	})
	up.AddTool(&mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
	proxy := mcp.NewServer(&mcp.Implementation{Name: "proxy"}, nil)
	proxy.AddToolRaw(&mcp.Tool{Name: "p"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Tool string          `json:"tool"`
			Args json.RawMessage `json:"args"`
		}
		json.Unmarshal(req.Params.Arguments, &a)
		return up.CallToolFor(ctx, req, a.Tool, a.Args)
	})
	a, b := transport.Pipe(nil)
	proxy.Connect(a)
	c, err := client.Connect(context.Background(), b, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "p", map[string]any{"tool": "double", "args": map[string]any{"n": 21}})
	if err != nil || res.IsError || res.TextOf() != "42" {
		t.Fatalf("%v %+v", err, res)
	}
	res, err = c.CallTool(context.Background(), "p", map[string]any{"tool": "double", "args": map[string]any{"n": "21"}})
	if err != nil || !res.IsError {
		t.Fatalf("invalid arguments: %v %+v", err, res)
	}
	if _, err := c.CallTool(context.Background(), "p", map[string]any{"tool": "boom"}); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("panic: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "p", map[string]any{"tool": "nope"}); err == nil {
		t.Fatal("unknown tool")
	}
	// A caller in the same process can hand over anything: what a
	// transport would have refused is refused here.
	for _, args := range []string{`{"n":`, "{\"n\":\"\xff\"}", `[1`} {
		_, err := up.CallToolFor(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParams{}}, "double", json.RawMessage(args))
		var e *mcp.Error
		if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
			t.Errorf("arguments %q: %v", args, err)
		}
	}
}

// TryAddTool refuses what AddTool panics on, with an error wrapping
// ErrInvalidTool, and registers nothing; a valid tool it registers.
func TestTryAddTool(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	for name, tc := range map[string]struct {
		tool *mcp.Tool
		h    mcp.ToolHandler
	}{
		"nil tool":        {nil, h},
		"empty name":      {&mcp.Tool{Name: ""}, h},
		"name with space": {&mcp.Tool{Name: "a b"}, h},
		"invalid UTF-8":   {&mcp.Tool{Name: "t", Description: "\xff"}, h},
		"nil handler":     {&mcp.Tool{Name: "t"}, nil},
		"not an object":   {&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}, h},
		"schema not JSON": {&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":`)}, h},
		"bad pattern":     {&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)}, h},
	} {
		err := srv.TryAddTool(tc.tool, tc.h)
		if !errors.Is(err, mcp.ErrInvalidTool) {
			t.Errorf("%s: %v, want ErrInvalidTool", name, err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: AddTool did not panic on what TryAddTool refuses", name)
				}
			}()
			srv.AddTool(tc.tool, tc.h)
		}()
	}
	if err := srv.TryAddTool(&mcp.Tool{Name: "t"}, h); err != nil {
		t.Fatal(err)
	}
	c, err := client.ConnectServer(context.Background(), srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 1 || tools[0].Name != "t" {
		t.Fatalf("tools after the refusals: %v, %v; want only t", tools, err)
	}
}
