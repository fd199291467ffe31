package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// basic (initialize, tools_call): connect, list the tools and call the
// first with {a: 2, b: 3} (add_numbers of tools_call).
func basic(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	if len(tools) > 0 {
		if _, err := c.CallTool(ctx, tools[0].Name, map[string]any{"a": 2, "b": 3}); err != nil {
			return err
		}
	}
	return nil
}

// listOnly (json-schema-ref-no-deref): list the tools; the schemas, with
// their network $ref, are kept as JSON and never dereferenced.
func listOnly(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.ListTools(ctx)
	return err
}

// sseRetry (sse-retry): call test_reconnection, whose SSE stream the
// server closes mid-call; the transport reconnects with Last-Event-ID
// after the server's retry delay.
func sseRetry(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); err != nil {
		return err
	}
	_, err = c.CallTool(ctx, "test_reconnection", map[string]any{})
	return err
}

// elicitationDefaults (elicitation-sep1034-client-defaults): accept the
// form with no content; the client fills in the schema's defaults.
func elicitationDefaults(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{
		OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{}}, nil
		},
	})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); err != nil {
		return err
	}
	_, err = c.CallTool(ctx, "test_client_elicitation_defaults", map[string]any{})
	return err
}

// requestMetadata (request-metadata, 2026-07-28): every request carries
// the _meta entries and the MCP-Protocol-Version header; the server
// rejects the first with -32022 and the client retries with a version it
// supports. The library does not retry itself, so the scenario does.
func requestMetadata(ctx context.Context, r *runner) error {
	version := r.version
	if version == "" || !mcp.IsStateless(version) {
		version = mcp.Version20260728
	}
	opts := client.Options{
		ProtocolVersion: version,
		OnSampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return nil, fmt.Errorf("no model here")
		},
		OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		},
		OnRoots: func(context.Context) (*mcp.ListRootsResult, error) { return &mcp.ListRootsResult{}, nil },
	}
	c, err := r.connect(ctx, opts)
	if isUnsupportedVersion(err, version) {
		c, err = r.connect(ctx, opts)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.ListTools(ctx)
	return err
}

// mrtrClient (sep-2322-client-request-state, 2026-07-28): the client's
// retry loop echoes requestState unchanged, omits it when the server sent
// none, uses a new id per round and treats a result without resultType as
// complete. Between the rounds of test_mrtr_echo_state (inside the
// elicitation handler) it calls test_mrtr_unrelated, which must carry
// nothing of the other call.
func mrtrClient(ctx context.Context, r *runner) error {
	var c *client.Client
	var once sync.Once
	var unrelatedErr error
	c, err := r.connect(ctx, client.Options{
		ProtocolVersion: mcp.Version20260728,
		OnElicitation: func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			once.Do(func() { _, unrelatedErr = c.CallTool(ctx, "test_mrtr_unrelated", map[string]any{}) })
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"confirmed": true}}, nil
		},
	})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); err != nil {
		return err
	}
	for _, tool := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
		if _, err := c.CallTool(ctx, tool, map[string]any{}); err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
	}
	return unrelatedErr
}

// standardHeaders (http-standard-headers): exercise every method that
// needs Mcp-Method and Mcp-Name: call each tool, read each resource, get
// each prompt. The transport sets the headers.
func standardHeaders(ctx context.Context, r *runner) error {
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
		if _, err := c.CallTool(ctx, t.Name, map[string]any{}); err != nil {
			return err
		}
	}
	resources, err := c.ListResources(ctx)
	if err != nil {
		return err
	}
	for _, res := range resources {
		// The mock answers with empty contents, which is not an error of
		// the headers under test.
		_, _ = c.ReadResource(ctx, res.URI)
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil {
		return err
	}
	for _, p := range prompts {
		if _, err := c.GetPrompt(ctx, p.Name, nil); err != nil {
			return err
		}
	}
	return nil
}

// schemaPreservation (json-schema-2020-12-preservation): send the focal
// tool's inputSchema back, byte for byte, to json_schema_echo.
func schemaPreservation(ctx context.Context, r *runner) error {
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
		if t.Name == "json_schema_2020_12_tool" {
			_, err := c.CallTool(ctx, "json_schema_echo", map[string]json.RawMessage{"schema": t.InputSchema})
			return err
		}
	}
	return fmt.Errorf("the server lists no json_schema_2020_12_tool")
}
