package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/client"
)

// SEP-2243 custom headers: the library's HTTP transport mirrors
// parameters annotated "x-mcp-header" into Mcp-Param-* headers of
// tools/call, and leaves tools with invalid annotations out of tools/list;
// the scenarios below only list the tools and call them.

// customHeaders (http-custom-headers): make the tool calls the scenario's
// context names, with the headers mirrored.
func customHeaders(ctx context.Context, r *runner) error {
	var sc struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if len(r.context) > 0 {
		if err := json.Unmarshal(r.context, &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	// Listing the tools is what teaches the transport their annotations.
	if _, err := c.ListTools(ctx); err != nil {
		return err
	}
	for _, call := range sc.ToolCalls {
		if _, err := c.CallTool(ctx, call.Name, call.Arguments); err != nil {
			return fmt.Errorf("%s: %w", call.Name, err)
		}
	}
	return nil
}

// invalidToolHeaders (http-invalid-tool-headers): drop the tools whose
// x-mcp-header annotations are invalid and call the others.
func invalidToolHeaders(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		args := map[string]any{}
		var s struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		for _, req := range s.Required {
			switch s.Properties[req].Type {
			case "integer", "number":
				args[req] = 1
			case "boolean":
				args[req] = true
			default:
				args[req] = "value"
			}
		}
		if _, err := c.CallTool(ctx, t.Name, args); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}
