package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// taskServer has tools that run as tasks. gate holds "blocked" until the
// test sends on it; cancelled reports each blocked run that saw its
// context end.
type taskServer struct {
	srv       *mcp.Server
	gate      chan struct{}
	cancelled chan struct{}
}

func newTaskServer(opts *mcp.ServerOptions) *taskServer {
	ts := &taskServer{gate: make(chan struct{}), cancelled: make(chan struct{}, 8)}
	ts.srv = mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, opts)
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "blocked", Execution: optional},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-ts.gate:
				return textResult("released"), nil, nil
			case <-ctx.Done():
				ts.cancelled <- struct{}{}
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "quick", Execution: optional},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult("quick"), nil, nil
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "only_task", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult("from a task"), nil, nil
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "asks", Execution: optional},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "who?", RequestedSchema: &mcp.ElicitationSchema{Type: "object",
				Properties: map[string]*mcp.PrimitiveSchemaDefinition{"name": {Type: "string"}}}}, mcp.InputKey("who"))
			if err != nil {
				if ctx.Err() != nil {
					ts.cancelled <- struct{}{}
				}
				return nil, nil, err
			}
			return textResult("hello " + res.Content["name"].(string)), nil, nil
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "two_steps", Execution: optional},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			var names []string
			for _, key := range []string{"first", "second"} {
				res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: key + "?", RequestedSchema: &mcp.ElicitationSchema{Type: "object",
					Properties: map[string]*mcp.PrimitiveSchemaDefinition{"name": {Type: "string"}}}}, mcp.InputKey(key))
				if err != nil {
					return nil, nil, err
				}
				names = append(names, res.Content["name"].(string))
			}
			return textResult(strings.Join(names, "+")), nil, nil
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "tool_error", Execution: optional},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("it broke")
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "protocol_error", Execution: optional},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcp.Error{Code: -32001, Message: "custom"}
		})
	mcp.AddTool(ts.srv, &mcp.Tool{Name: "panics", Execution: optional},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			panic("boom")
		})
	return ts
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (ts *taskServer) connect(t *testing.T, opts *client.Options) *client.Client {
	t.Helper()
	if opts == nil {
		opts = &client.Options{}
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = mcp.Version20260728
	}
	a, b := transport.Pipe(nil)
	ts.srv.Connect(b)
	c, err := client.Connect(context.Background(), a, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestTaskStartPollAwait(t *testing.T) {
	ts := newTaskServer(nil)
	c := ts.connect(t, nil)
	ctx := context.Background()
	if _, ok := c.Capabilities().Extensions[mcp.ExtensionTasks]; !ok {
		t.Errorf("the server does not declare %s: %+v", mcp.ExtensionTasks, c.Capabilities())
	}
	task, err := c.StartTool(ctx, "blocked", nil)
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() == "" || task.Task().Status != mcp.TaskWorking || task.Task().TTL != mcp.DefaultTaskTTL || task.Task().PollInterval != mcp.DefaultTaskPollInterval {
		t.Fatalf("created: %+v", task.Task())
	}
	st, err := task.Poll(ctx)
	if err != nil || st.Status != mcp.TaskWorking || st.Result != nil {
		t.Fatalf("poll while working: %+v %v", st, err)
	}
	fut := task.AwaitAsync(ctx)
	ts.gate <- struct{}{}
	res, err := fut.Wait()
	if err != nil || res.TextOf() != "released" {
		t.Fatalf("await: %v %v", res, err)
	}
	// The result survives the request that started the task, and the
	// await that read it.
	st, err = task.Poll(ctx)
	if err != nil || st.Status != mcp.TaskCompleted || !strings.Contains(string(st.Result), "released") {
		t.Fatalf("poll after completion: %+v %v", st, err)
	}
	if strings.Contains(string(st.Result), "related-task") {
		t.Errorf("the inlined result carries related-task metadata: %s", st.Result)
	}
}

func TestCallToolAwaitsTasks(t *testing.T) {
	ts := newTaskServer(nil)
	var asked int
	c := ts.connect(t, &client.Options{OnElicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "ada"}}, nil
	}})
	ctx := context.Background()
	for name, want := range map[string]string{"quick": "quick", "only_task": "from a task", "asks": "hello ada"} {
		res, err := c.CallTool(ctx, name, nil)
		if err != nil || res.TextOf() != want || res.IsError {
			t.Errorf("%s: %v %v", name, res, err)
		}
	}
	if asked != 1 {
		t.Errorf("elicitation handler called %d times, want 1", asked)
	}
	res, err := c.CallTool(ctx, "tool_error", nil)
	if err != nil || !res.IsError || res.TextOf() != "it broke" {
		t.Errorf("tool error: %v %v", res, err)
	}
	_, err = c.CallTool(ctx, "protocol_error", nil)
	var rpcErr *mcp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32001 {
		t.Errorf("protocol error: %v", err)
	}
	_, err = c.CallTool(ctx, "panics", nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInternalError {
		t.Errorf("panic: %v", err)
	}
}

func TestTaskCancel(t *testing.T) {
	ts := newTaskServer(nil)
	c := ts.connect(t, nil)
	ctx := context.Background()
	task, err := c.StartTool(ctx, "blocked", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	<-ts.cancelled // the handler's context ended
	if _, err := task.Await(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("await after cancel: %v", err)
	}
	// Cancelling again, now that it has ended, is acknowledged alike.
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := task.Poll(ctx)
	if err != nil || st.Status != mcp.TaskCancelled {
		t.Fatalf("poll: %+v %v", st, err)
	}

	// A CallTool whose context ends cancels the task it awaits: here it
	// ends while the client answers the task's question.
	cctx, cancel := context.WithCancel(ctx)
	c2 := ts.connect(t, &client.Options{OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		cancel()
		return nil, context.Canceled
	}})
	if _, err := c2.CallTool(cctx, "asks", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool after cancel: %v", err)
	}
	select {
	case <-ts.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the task of an abandoned CallTool was not cancelled")
	}
}

func TestTaskNegotiation(t *testing.T) {
	ts := newTaskServer(nil)
	ctx := context.Background()
	for _, opts := range []*client.Options{{DisableTasks: true}, {ProtocolVersion: mcp.Version20251125}} {
		c := ts.connect(t, opts)
		if opts.DisableTasks {
			task, err := c.StartTool(ctx, "quick", nil)
			if err != nil || task.ID() != "" {
				t.Fatalf("optional tool without tasks: %+v %v", task, err)
			}
			if res, err := task.Await(ctx); err != nil || res.TextOf() != "quick" {
				t.Fatalf("immediate result: %v %v", res, err)
			}
		}
		// 2025-11-25 makes a task only when the client asks: CallTool
		// does not.
		if res, err := c.CallTool(ctx, "quick", nil); err != nil || res.TextOf() != "quick" {
			t.Fatalf("%s: optional tool, synchronously: %v %v", opts.ProtocolVersion, res, err)
		}
		_, err := c.CallTool(ctx, "only_task", nil)
		var rpcErr *mcp.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("%s: required task without tasks: %v", opts.ProtocolVersion, err)
		}
		if opts.ProtocolVersion == "" {
			if rpcErr.Code != mcp.CodeMissingClientCapability {
				t.Errorf("code %d, want %d", rpcErr.Code, mcp.CodeMissingClientCapability)
			}
			b, _ := json.Marshal(rpcErr.Data)
			if !strings.Contains(string(b), `"extensions":{"`+mcp.ExtensionTasks+`":{}}`) {
				t.Errorf("error data %s does not name the extension", b)
			}
			// tasks/get is gated too.
			err = c.Call(ctx, "tasks/get", &mcp.TaskParams{TaskID: "x"}, nil)
			if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingClientCapability {
				t.Errorf("tasks/get without the extension: %v", err)
			}
		}
	}
	c := ts.connect(t, nil)
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		err := c.Call(ctx, m, &mcp.TaskParams{TaskID: "no-such-task"}, nil)
		var rpcErr *mcp.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
			t.Errorf("%s of an unknown task: %v", m, err)
		}
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		err := c.Call(ctx, m, &mcp.TaskParams{TaskID: "x"}, nil)
		var rpcErr *mcp.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMethodNotFound {
			t.Errorf("%s: %v", m, err)
		}
	}
}

func TestTaskBounds(t *testing.T) {
	ts := newTaskServer(&mcp.ServerOptions{MaxTasks: 2, TaskTTL: time.Hour})
	c := ts.connect(t, nil)
	ctx := context.Background()
	for range 2 {
		if _, err := c.StartTool(ctx, "blocked", nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.StartTool(ctx, "blocked", nil)
	var rpcErr *mcp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeServerBusy {
		t.Fatalf("a task beyond MaxTasks: %v", err)
	}
	close(ts.gate)
}

func TestTaskTTLCancelsAndForgets(t *testing.T) {
	ts := newTaskServer(&mcp.ServerOptions{TaskTTL: 50 * time.Millisecond})
	c := ts.connect(t, nil)
	ctx := context.Background()
	task, err := c.StartTool(ctx, "blocked", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-ts.cancelled // the TTL passed: the work was stopped
	_, err = task.Poll(ctx)
	var rpcErr *mcp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
		t.Fatalf("poll after the TTL: %v", err)
	}
}

// A client cannot plant answers to questions a task has not asked yet:
// tasks/update answers only what is pending.
func TestTaskUpdateIgnoresUnaskedKeys(t *testing.T) {
	ts := newTaskServer(nil)
	c := ts.connect(t, &client.Options{Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}})
	ctx := context.Background()
	task, err := c.StartTool(ctx, "two_steps", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(key string) {
		t.Helper()
		for {
			st, err := task.Poll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := st.InputRequests[key]; ok && st.Status == mcp.TaskInputRequired && len(st.InputRequests) == 1 {
				return
			}
			if st.Status.Terminal() {
				t.Fatalf("the task ended waiting for %q: %+v", key, st)
			}
		}
	}
	answer := func(key, name string) {
		t.Helper()
		r := mcp.InputResponses{}
		_ = r.Set(key, &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": name}})
		if err := c.Call(ctx, "tasks/update", &mcp.UpdateTaskParams{TaskID: task.ID(), InputResponses: r}, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("first")
	answer("second", "planted") // not asked yet: ignored
	answer("first", "ann")
	waitFor("second") // asked now, and not answered by the plant
	answer("second", "bo")
	res, err := task.Await(ctx)
	if err != nil || res.TextOf() != "ann+bo" {
		t.Fatalf("await: %v %v", res, err)
	}
}

// The tasks of 2025-11-25: asked for by the client, fetched with
// tasks/result, listed with tasks/list, and visible to their session only.
func TestLegacyTasks(t *testing.T) {
	ts := newTaskServer(nil)
	c := ts.connect(t, &client.Options{ProtocolVersion: mcp.Version20251125})
	other := ts.connect(t, &client.Options{ProtocolVersion: mcp.Version20251125})
	ctx := context.Background()
	if c.Capabilities().Tasks == nil {
		t.Errorf("no tasks capability: %+v", c.Capabilities())
	}
	task, err := c.StartTool(ctx, "blocked", nil)
	if err != nil || task.ID() == "" {
		t.Fatalf("start: %+v %v", task, err)
	}
	if st, err := task.Poll(ctx); err != nil || st.Status != mcp.TaskWorking || st.TTL != mcp.DefaultTaskTTL {
		t.Fatalf("poll: %+v %v", st, err)
	}
	var list struct {
		Tasks []mcp.Task `json:"tasks"`
	}
	if err := c.Call(ctx, "tasks/list", &mcp.PaginatedParams{}, &list); err != nil || len(list.Tasks) != 1 || list.Tasks[0].TaskID != task.ID() {
		t.Fatalf("list: %+v %v", list, err)
	}
	// Another session neither lists nor reaches it.
	if err := other.Call(ctx, "tasks/list", &mcp.PaginatedParams{}, &list); err != nil || len(list.Tasks) != 0 {
		t.Fatalf("another session's list: %+v %v", list, err)
	}
	var rpcErr *mcp.Error
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if err := other.Call(ctx, m, &mcp.TaskParams{TaskID: task.ID()}, nil); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
			t.Errorf("%s from another session: %v", m, err)
		}
	}
	fut := task.AwaitAsync(ctx)
	ts.gate <- struct{}{}
	res, err := fut.Wait()
	if err != nil || res.TextOf() != "released" {
		t.Fatalf("await: %v %v", res, err)
	}
	var raw map[string]json.RawMessage
	if err := c.Call(ctx, "tasks/result", &mcp.TaskParams{TaskID: task.ID()}, &raw); err != nil || !strings.Contains(string(raw["_meta"]), task.ID()) {
		t.Errorf("tasks/result names no related task: %s %v", raw["_meta"], err)
	}
	if err := task.Cancel(ctx); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
		t.Errorf("cancel of a completed task: %v", err)
	}
	// A failed task's tasks/result is its error.
	failed, err := c.StartTool(ctx, "protocol_error", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := failed.Await(ctx); !errors.As(err, &rpcErr) || rpcErr.Code != -32001 {
		t.Errorf("failed task: %v", err)
	}
	// The tasks of a session end with it.
	if _, err := c.StartTool(ctx, "blocked", nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case <-ts.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("a closed session's task goes on")
	}
}

// A 2025-11-25 task's status changes reach its session, in order, ending
// with the terminal one.
func TestLegacyTaskStatusNotifications(t *testing.T) {
	ts := newTaskServer(nil)
	a, b := transport.Pipe(nil)
	ts.srv.Connect(b)
	notes := make(chan mcp.Task, 16)
	conn := transport.NewConn(a, transport.HandlerFunc(func(ctx context.Context, _ *transport.Conn, r *transport.Request) {
		if r.Method == "notifications/tasks/status" {
			var task mcp.Task
			if err := json.Unmarshal(r.Params, &task); err == nil {
				notes <- task
			}
		}
	}), nil)
	defer conn.Close()
	ctx := context.Background()
	if err := conn.Call(ctx, "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.Version20251125}, nil); err != nil {
		t.Fatal(err)
	}
	var created struct {
		Task mcp.Task `json:"task"`
	}
	if err := conn.Call(ctx, "tools/call", &mcp.CallToolParams{Name: "blocked", Task: &mcp.TaskMetadata{TTL: mcp.Ptr(int64(60_000))}}, &created); err != nil {
		t.Fatal(err)
	}
	if created.Task.TaskID == "" || created.Task.TTL != time.Minute {
		t.Fatalf("created: %+v (the TTL asked for is a minute)", created.Task)
	}
	ts.gate <- struct{}{}
	select {
	case n := <-notes:
		if n.TaskID != created.Task.TaskID || n.Status != mcp.TaskCompleted {
			t.Fatalf("notification: %+v", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no status notification")
	}
}

func TestServerCancelTasks(t *testing.T) {
	ts := newTaskServer(nil)
	c := ts.connect(t, nil)
	ctx := context.Background()
	task, err := c.StartTool(ctx, "blocked", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.srv.CancelTasks()
	<-ts.cancelled
	if _, err := task.Await(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("await: %v", err)
	}
}
