package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// jsonSchema202012 is the input schema of json_schema_2020_12_tool, the
// canonical fixture of the json-schema-2020-12 scenario (SEP-1613,
// SEP-2106): $schema, $defs with $anchor, $ref, allOf/anyOf, if/then/else
// and additionalProperties must all survive tools/list unchanged.
const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"}
      }
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

// addTools registers the tools whose results are fixed or computed
// locally: the tools-call-* scenarios, json-schema-2020-12, and the
// utility tools other tests of this repository use (echo, sleep,
// test_structured_output).
func addTools(srv *mcp.Server) {
	fixed := func(name, desc string, content ...mcp.Content) {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc},
			func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: content}, nil, nil
			})
	}
	// tools-call-simple-text
	fixed("test_simple_text", "Tests simple text content response",
		&mcp.TextContent{Text: "This is a simple text response for testing."})
	// tools-call-image
	fixed("test_image_content", "Tests image content response",
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"})
	// tools-call-audio
	fixed("test_audio_content", "Tests audio content response",
		&mcp.AudioContent{Data: minimalWAV, MIMEType: "audio/wav"})
	// tools-call-embedded-resource
	fixed("test_embedded_resource", "Tests embedded resource content response",
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: mcp.Ptr("This is an embedded resource content.")}})
	// tools-call-mixed-content
	fixed("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)",
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: mcp.Ptr(`{"test":"data","value":123}`)}})

	// tools-call-error: a failure of the tool, reported with isError.
	mcp.AddTool(srv, &mcp.Tool{Name: "test_error_handling", Description: "Tests error response handling"},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			//lint:ignore ST1005 the conformance suite expects this text
			return nil, nil, errors.New("This tool intentionally returns an error for testing")
		})

	// tools-call-with-logging: three info messages, 50 ms apart. They
	// reach the client only at the level it asked for (logging/setLevel,
	// or _meta logLevel in 2026-07-28).
	mcp.AddTool(srv, &mcp.Tool{Name: "test_tool_with_logging", Description: "Tests tool that emits log messages during execution"},
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
			return text("Tool with logging executed successfully"), nil, nil
		})

	// tools-call-with-progress: 0, 50 and 100 of 100, 50 ms apart, when
	// the request carries a progress token.
	mcp.AddTool(srv, &mcp.Tool{Name: "test_tool_with_progress", Description: "Tests tool that reports progress notifications"},
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
			return text("Progress tool completed"), nil, nil
		})

	// json-schema-2020-12: the schema is served as written.
	srv.AddTool(&mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
		InputSchema: json.RawMessage(jsonSchema202012)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := string(req.Params.Arguments)
			if args == "" {
				args = "{}"
			}
			return text("JSON Schema 2020-12 tool called with: " + args), nil
		})

	// http-custom-header-server-validation (SEP-2243): a tool whose string
	// parameter is mirrored into the Mcp-Param-Region header. Checking
	// the header against the body is the HTTP transport's job.
	srv.AddTool(&mcp.Tool{Name: "test_custom_headers", Description: "Tool with an x-mcp-header parameter (SEP-2243)",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"Region, mirrored in Mcp-Param-Region","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return text("region=" + in.Region), nil
		})

	// Utility tools that tests elsewhere in this repository rely on.
	type addIn struct {
		A float64 `json:"a" jsonschema_description:"first addend"`
		B float64 `json:"b" jsonschema_description:"second addend"`
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
		Text string `json:"text" jsonschema_description:"text to echo"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes its text argument."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})

	type sleepIn struct {
		Ms int `json:"ms" jsonschema:"minimum=0,maximum=600000" jsonschema_description:"milliseconds to wait"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "sleep", Description: "Waits, then returns; for cancellation and concurrency tests."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			if err := pause(ctx, time.Duration(in.Ms)*time.Millisecond); err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(in)
			return text(string(b)), nil, nil
		})
}
