package mcphttp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// Tasks over Streamable HTTP: the task outlives the POST that created it
// (each stateless POST has a session of its own, which ends with it), and
// tasks/get, tasks/update and tasks/cancel pass the Mcp-Name check with
// the task ID our client sends.
func TestTasksOverHTTP(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	gate := make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "go?", RequestedSchema: &mcp.ElicitationSchema{Type: "object",
				Properties: map[string]*mcp.PrimitiveSchemaDefinition{"ok": {Type: "boolean"}}}})
			if err != nil {
				return nil, nil, err
			}
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "went: " + res.Action}}}, nil, nil
		})
	_, url := serveHTTP(t, srv, nil)
	c, _ := dialHTTP(t, url, &client.Options{ProtocolVersion: mcp.Version20260728,
		OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"ok": true}}, nil
		}})
	ctx := context.Background()
	task, err := c.StartTool(ctx, "wait", nil)
	if err != nil || task.ID() == "" {
		t.Fatalf("start: %+v %v", task, err)
	}
	fut := task.AwaitAsync(ctx)
	close(gate)
	res, err := fut.Wait()
	if err != nil || res.TextOf() != "went: accept" {
		t.Fatalf("await: %v %v", res, err)
	}
	again, err := c.StartTool(ctx, "wait", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Await(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("await after cancel: %v", err)
	}
}
