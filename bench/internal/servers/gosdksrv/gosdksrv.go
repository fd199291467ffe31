// Package gosdksrv is the benchmark workload as an official Go SDK server.
package gosdksrv

import (
	"context"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/winbridge/winbridge/bench/internal/servers"
)

// GoSDK returns the workload as an official Go SDK server.
func New() *gosdk.Server {
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-bench", Version: "1.0.0"}, nil)
	gosdk.AddTool(srv, &gosdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(ctx context.Context, req *gosdk.CallToolRequest, in servers.EchoIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "sleep", Description: "Sleep for ms milliseconds."},
		func(ctx context.Context, req *gosdk.CallToolRequest, in servers.SleepIn) (*gosdk.CallToolResult, any, error) {
			servers.Sleep(ctx, in.Ms)
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "ok"}}}, nil, nil
		})
	return srv
}
