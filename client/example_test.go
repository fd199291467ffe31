package client_test

import (
	"context"
	"fmt"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// Connect to a server (here in the same process) and call a tool. Over
// stdio, the stream would come from client.Launch or transport.NewStream.
func ExampleConnect() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	type in struct{ A, B int }
	type out struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "sum"}, func(ctx context.Context, req *mcp.CallToolRequest, v in) (*mcp.CallToolResult, out, error) {
		return nil, out{v.A + v.B}, nil
	})
	a, b := transport.Pipe(nil)
	srv.Connect(b)

	c, err := client.Connect(context.Background(), a, nil) // or client.ConnectServer(ctx, srv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "sum", map[string]int{"A": 2, "B": 40})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.ProtocolVersion(), res.StructuredContent)
	// Output: 2026-07-28 map[sum:42]
}

// Call a server of this process without wiring a transport: a test of
// one's own server, or a program that hands its tools to code expecting
// a client.
func ExampleConnectServer() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, v struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, " + v.Name}}}, nil, nil
	})
	ctx := context.Background()
	c, err := client.ConnectServer(ctx, srv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close() // ends the server's session
	res, err := c.CallTool(ctx, "greet", map[string]string{"name": "gopher"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.TextOf())
	// Output: hello, gopher
}

// Code that only calls tools takes a ToolCaller: a *Client, a *Process or
// a *Manager.
func ExampleToolCaller() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, v struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v.Text}}}, nil, nil
	})
	ask := func(ctx context.Context, tc client.ToolCaller, text string) string {
		res, err := tc.CallTool(ctx, "echo", map[string]string{"text": text})
		if err != nil {
			return err.Error()
		}
		return res.TextOf()
	}
	ctx := context.Background()
	c, err := client.ConnectServer(ctx, srv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Println(ask(ctx, c, "any caller"))
	// Output: any caller
}

// Load an mcpServers configuration as Claude Desktop and others write it.
func ExampleParseConfig() {
	cfg, err := client.ParseConfig([]byte(`{"mcpServers": {
		"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", 7]}
	}}`))
	fmt.Println(cfg == nil, err)
	// Output: true config: mcpServers.fs.args[2]: want string, got number
}
