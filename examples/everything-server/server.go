package main

import (
	"context"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// The fixture follows the reference everything-server of
// @modelcontextprotocol/conformance (examples/servers/typescript): same
// tool, resource and prompt names, same contents. Each file adds one area:
//
//	tools.go        content, logging, progress, error, schema and utility tools
//	interactive.go  sampling and elicitation tools (legacy-era scenarios)
//	mrtr.go         test_input_required_result_* (2026-07-28, SEP-2322)
//	diagnostics.go  the 2026-07-28 diagnostic tools of server-stateless
//	resources.go    test://static-text, static-binary, template, watched
//	prompts.go      the prompts and completion/complete

// Media the scenarios ask for: a 1x1 red PNG and a minimal WAV, the same
// bytes as the reference fixture.
const (
	redPixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	minimalWAV  = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// serverName is what the fixture calls itself; client/interop_test.go
// checks it.
const serverName = "winbridge-everything-server"

type noArgs struct{}

// newServer builds the fixture server.
func newServer(configure ...func(*mcp.ServerOptions)) *mcp.Server {
	opts := &mcp.ServerOptions{
		Instructions:      "Conformance fixture for winbridge: the tools, resources and prompts of the MCP conformance suite.",
		CompletionHandler: complete,
	}
	for _, f := range configure {
		f(opts) // -redis: the replicas' bus and keyring
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: serverName, Version: "1.0.0"}, opts)
	addTools(srv)
	addInteractiveTools(srv)
	addMRTR(srv)
	addTasks(srv)
	addSkills(srv)
	addDiagnostics(srv)
	addResources(srv)
	addPrompts(srv)
	return srv
}

// text is a result of one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
