// Package mcpgosrv is the benchmark workload as a mark3labs/mcp-go server.
package mcpgosrv

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/winbridge/winbridge/bench/internal/servers"
)

// MCPGo returns the workload as a mark3labs/mcp-go server.
func New() *mcpgoserver.MCPServer {
	srv := mcpgoserver.NewMCPServer("mcpgo-bench", "1.0.0", mcpgoserver.WithToolCapabilities(true))
	srv.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echo the text back."), mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(text), nil
		})
	srv.AddTool(mcpgo.NewTool("sleep", mcpgo.WithDescription("Sleep for ms milliseconds."), mcpgo.WithNumber("ms", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			servers.Sleep(ctx, req.GetInt("ms", 0))
			return mcpgo.NewToolResultText("ok"), nil
		})
	return srv
}
