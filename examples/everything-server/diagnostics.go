package main

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// addDiagnostics registers the diagnostic tools of the server-stateless
// scenario (2026-07-28, SEP-2575) and test_reconnection of
// server-sse-polling.
func addDiagnostics(srv *mcp.Server) {
	tool := func(name, desc string, h func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				res, err := h(ctx, req)
				return res, nil, err
			})
	}

	// sep-2575-server-rejects-undeclared-capability: the tool needs
	// sampling; a client that did not declare it gets -32021 whose data
	// names the capability as a ClientCapabilities object.
	tool("test_missing_capability", "Test tool requiring sampling",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.ClientCapabilities().Sampling == nil {
				return nil, missingSampling(req.ProtocolVersion())
			}
			res, err := req.CreateMessage(ctx, samplingParams("Say hello", 20))
			if err != nil {
				return nil, err
			}
			return text("Success: " + sampledText(res)), nil
		})

	// sep-2575-http-server-no-independent-requests-on-stream: the
	// response stream of a call that needs input carries notifications
	// and an InputRequiredResult, never a request of the server's own.
	tool("test_streaming_elicitation", "Diagnostic tool validating response progress streams",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := req.Progress(ctx, 50, 100, "asking for input"); err != nil {
				return nil, err
			}
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Streaming elicitation", RequestedSchema: textSchema("value", "string")})
			if err != nil {
				return nil, err
			}
			return text("Streaming complete: " + describeElicit(res)), nil
		})

	// sep-2575-server-no-log-without-loglevel: logs at info, which the
	// library sends only when the request's _meta (or logging/setLevel)
	// asked for that level.
	tool("test_logging_tool", "Diagnostic logging validator tool",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := req.Log(ctx, mcp.LevelInfo, "test_logging_tool", "Diagnostic trace logging activated"); err != nil {
				return nil, err
			}
			return text("Logging evaluated"), nil
		})

	// sep-2575-server-sends-{tools,prompts}-list-changed-on-subscription:
	// each call adds or removes a tool (a prompt), so the list changes.
	var mu sync.Mutex
	var toolOn, promptOn bool
	tool("test_trigger_tool_change", "Diagnostic hook: changes the tool list",
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if toolOn = !toolOn; toolOn {
				mcp.AddTool(srv, &mcp.Tool{Name: "test_dynamic_tool", Description: "A tool that test_trigger_tool_change adds and removes"},
					func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
						return text("dynamic"), nil, nil
					})
			} else {
				srv.RemoveTools("test_dynamic_tool")
			}
			return text("Mutation triggered"), nil
		})
	tool("test_trigger_prompt_change", "Diagnostic hook: changes the prompt list",
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if promptOn = !promptOn; promptOn {
				srv.AddPrompt(&mcp.Prompt{Name: "test_dynamic_prompt", Description: "A prompt that test_trigger_prompt_change adds and removes"},
					func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "dynamic"}}}}, nil
					})
			} else {
				srv.RemovePrompts("test_dynamic_prompt")
			}
			return text("Mutation triggered"), nil
		})

	// server-sse-polling (SEP-1699) wants the server to close the call's
	// SSE stream mid-call and finish after the client reconnects. A tool
	// cannot reach its HTTP stream, so this one only takes a moment.
	tool("test_reconnection", "Tests SSE stream disconnection and client reconnection (SEP-1699)",
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := pause(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
		})
}

// missingSampling is the error for a request that needs sampling from a
// client that did not declare it: -32021 with data.requiredCapabilities
// in 2026-07-28 (MissingRequiredClientCapabilityError), invalid request
// before.
func missingSampling(version string) *mcp.Error {
	code := int64(mcp.CodeMissingClientCapability)
	if !mcp.IsStateless(version) {
		code = mcp.CodeInvalidRequest
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
	return &mcp.Error{Code: code, Message: "Missing required client capability: sampling", Data: data}
}
