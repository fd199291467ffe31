package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// The tools of the tasks-* scenarios (the io.modelcontextprotocol/tasks
// extension, SEP-2663). A tool with task support runs as a task for a
// client that declares the extension: the call answers at once with a
// CreateTaskResult and the handler runs in the background, where asking
// for input parks the task in input_required until tasks/update answers.

func addTasks(srv *mcp.Server) {
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}
	required := &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}

	type greetIn struct {
		Name string `json:"name" jsonschema_description:"who to greet"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets by name, synchronously."},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			return text("Hello, " + in.Name + "!"), nil, nil
		})

	type computeIn struct {
		Seconds float64 `json:"seconds" jsonschema:"minimum=0,maximum=3600" jsonschema_description:"how long to work, in seconds"`
		Label   string  `json:"label,omitempty" jsonschema_description:"a label echoed in the result"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "slow_compute", Description: "Works for the given seconds, then returns; runs as a task for clients that support tasks.", Execution: optional},
		func(ctx context.Context, _ *mcp.CallToolRequest, in computeIn) (*mcp.CallToolResult, any, error) {
			if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("computed %q after %gs", in.Label, in.Seconds)), nil, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "failing_job", Description: "Fails as a tool after a moment; only runs as a task.", Execution: required},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			if err := pause(ctx, 200*time.Millisecond); err != nil {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("the job failed, as it always does")
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "protocol_error_job", Description: "Ends in a protocol error; runs as a task for clients that support tasks.", Execution: optional},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "internal error: the job broke"}
		})

	type deleteIn struct {
		Filename string `json:"filename" jsonschema_description:"the file to delete"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "confirm_delete", Description: "Asks for confirmation, then pretends to delete the file.", Execution: optional},
		func(ctx context.Context, req *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Delete " + in.Filename + "?", RequestedSchema: textSchema("confirm", "boolean")}, mcp.InputKey("confirm"))
			if err != nil {
				return nil, nil, err
			}
			if res.Action != "accept" || res.Content["confirm"] != true {
				return text("kept " + in.Filename), nil, nil
			}
			return text("deleted " + in.Filename), nil, nil
		})

	mcp.AddTool(srv, &mcp.Tool{Name: "multi_input", Description: "Asks two questions at once, then reports both answers.", Execution: optional},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			keys := []string{"first", "second"}
			answers := make([]string, len(keys))
			errs := make([]error, len(keys))
			var wg sync.WaitGroup
			for i, key := range keys {
				wg.Go(func() {
					res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "The " + key + " name?", RequestedSchema: textSchema("name", "string")}, mcp.InputKey(key))
					if err != nil {
						errs[i] = err
						return
					}
					answers[i] = field(res, "name")
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return nil, nil, err
				}
			}
			return text(fmt.Sprintf("first=%s; second=%s", answers[0], answers[1])), nil, nil
		})

	// tasks-mrtr-composition: the input comes first, by multi round-trip
	// (the handler runs again when the client retries with the answer),
	// and only then does the work go to the background.
	mcp.AddTool(srv, &mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name by multi round-trip, then greets it from a task.",
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired, HandlerStartsTask: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: textSchema("name", "string")}, mcp.InputKey("user_name"))
			if err != nil {
				return nil, nil, err
			}
			name := field(res, "name")
			out, err := mcp.RunAsTask(ctx, req, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("Hello, " + name + "!"), nil
			})
			return out, nil, err
		})
}
