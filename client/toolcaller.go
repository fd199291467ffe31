package client

import (
	"context"

	"github.com/winbridge/winbridge/mcp"
)

// ToolCaller calls a tool by name: a *Client (one connection), a *Process
// (a child server that may be restarted between calls) or a *Manager (the
// tools of many servers under one set of names). Code that only calls
// tools takes a ToolCaller and works with any of them.
type ToolCaller interface {
	CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error)
}

var (
	_ ToolCaller = (*Client)(nil)
	_ ToolCaller = (*Process)(nil)
	_ ToolCaller = (*Manager)(nil)
)
