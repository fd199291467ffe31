package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// A 1x1 red PNG and a short WAV, the minimal media the scenarios ask for.
const (
	redPixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	silentWAV   = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
)

type noArgs struct{}

// newServer builds the fixture server.
func newServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "winbridge-everything-server", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: "Conformance fixture for winbridge."})

	fixed := func(name, desc string, content ...mcp.Content) {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc},
			func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: content}, nil, nil
			})
	}
	fixed("test_simple_text", "Returns simple text content.",
		&mcp.TextContent{Text: "This is a simple text response for testing."})
	fixed("test_image_content", "Returns a 1x1 red PNG.",
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"})
	fixed("test_audio_content", "Returns a short silent WAV.",
		&mcp.AudioContent{Data: silentWAV, MIMEType: "audio/wav"})
	fixed("test_embedded_resource", "Returns an embedded text resource.",
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: mcp.Ptr("This is an embedded resource content.")}})
	fixed("test_multiple_content_types", "Returns text, an image and a resource.",
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: mcp.Ptr(`{"test":"data","value":123}`)}})

	mcp.AddTool(srv, &mcp.Tool{Name: "test_error_handling", Description: "Always fails, as a tool error."},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("This tool intentionally returns an error for testing")
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three info log messages while it runs."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := pause(ctx, 50*time.Millisecond); err != nil {
						return nil, nil, err
					}
				}
				if err := req.Log(ctx, mcp.LevelInfo, "test_tool_with_logging", msg); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Tool with logging executed successfully"}}}, nil, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := pause(ctx, 50*time.Millisecond); err != nil {
						return nil, nil, err
					}
				}
				if err := req.Progress(ctx, p, 100, fmt.Sprintf("Completed step %d of 3", i+1)); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Progress tool completed"}}}, nil, nil
		})

	type addIn struct {
		A float64 `json:"a" jsonschema:"description=first addend"`
		B float64 `json:"b" jsonschema:"description=second addend"`
	}
	type addOut struct {
		Sum float64 `json:"sum"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "test_structured_output", Description: "Adds two numbers; returns structured content.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true), IdempotentHint: mcp.Ptr(true)}},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})

	type echoIn struct {
		Text string `json:"text" jsonschema:"description=text to echo"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes its text argument."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})

	type sleepIn struct {
		Ms int `json:"ms" jsonschema:"description=milliseconds to wait,minimum=0,maximum=600000"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "sleep", Description: "Waits, then returns; for cancellation and concurrency tests."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			if err := pause(ctx, time.Duration(in.Ms)*time.Millisecond); err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
		})
	return srv
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
