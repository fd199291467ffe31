// Package wb is the benchmark workload as a winbridge server.
package wb

import (
	"context"

	"github.com/winbridge/winbridge/bench/internal/servers"
	"github.com/winbridge/winbridge/mcp"
)

// Winbridge returns the workload as a winbridge server.
func New() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "winbridge-bench", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in servers.EchoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "sleep", Description: "Sleep for ms milliseconds."},
		func(ctx context.Context, req *mcp.CallToolRequest, in servers.SleepIn) (*mcp.CallToolResult, any, error) {
			servers.Sleep(ctx, in.Ms)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	return srv
}
