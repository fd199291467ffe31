package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Tasks (the io.modelcontextprotocol/tasks extension of 2026-07-28): a
// server may answer a tools/call with a task instead of a result, and the
// client polls tasks/get until the task ends. CallTool does all of it:
// the caller sees the result. StartTool returns the task itself, to poll,
// await or cancel it; its result survives the request that started it.

// ErrTaskCancelled is returned when the awaited task was cancelled.
var ErrTaskCancelled = errors.New("client: the task was cancelled")

// Bounds of awaiting a task. The server suggests a poll interval; one
// below minPollInterval (a busy loop) or above maxPollInterval is clamped.
// A server may ask for input at most maxTaskInputs times per task.
const (
	minPollInterval     = 50 * time.Millisecond
	maxPollInterval     = 30 * time.Second
	defaultPollInterval = time.Second
	maxTaskInputs       = 64
)

// ToolTask is a tool call started with StartTool: either a result the
// server gave at once, or a task to await.
type ToolTask struct {
	c       *Client
	name    string
	task    *mcp.Task           // nil when the server answered at once
	result  *mcp.CallToolResult // the immediate result
	inputs  int                 // input requests answered so far
	started time.Time           // when the task was created, by our clock
}

// StartTool calls a tool and returns once the server has either answered
// or created a task; input the server asks for first (by multi round-trip)
// is answered as for CallTool.
func (c *Client) StartTool(ctx context.Context, name string, args any, opts ...CallOption) (*ToolTask, error) {
	var raw json.RawMessage
	tc := newToolCall(name, args)
	if !c.stateless && c.version == mcp.Version20251125 && !c.opts.DisableTasks {
		// 2025-11-25: the client asks; a tool without task support
		// ignores the ask and answers at once.
		tc.Task = &mcp.TaskMetadata{}
	}
	if err := c.callWithInput(ctx, "tools/call", tc, &raw, opts...); err != nil {
		return nil, err
	}
	return c.toolTask(name, raw)
}

// toolTask reads the answer of a tools/call: a CreateTaskResult or a
// CallToolResult.
func (c *Client) toolTask(name string, raw json.RawMessage) (*ToolTask, error) {
	t := &ToolTask{c: c, name: name, started: time.Now()}
	var head struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"` // 2025-11-25
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("tools/call %s: decoding the result: %w", name, err)
	}
	if head.ResultType == mcp.ResultTask || len(head.Task) > 0 && head.Task[0] == '{' {
		var created mcp.CreateTaskResult
		if err := json.Unmarshal(raw, &created); err != nil {
			return nil, fmt.Errorf("tools/call %s: decoding the task: %w", name, err)
		}
		if created.TaskID == "" {
			return nil, fmt.Errorf("tools/call %s: the server created a task without a taskId", name)
		}
		t.task = &created.Task
		return t, nil
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("tools/call %s: decoding the result: %w", name, err)
	}
	t.result = &res
	return t, nil
}

// ID is the task's ID, empty when the server answered at once.
func (t *ToolTask) ID() string {
	if t.task == nil {
		return ""
	}
	return t.task.TaskID
}

// Task is the task as the server created it, nil when it answered at once.
func (t *ToolTask) Task() *mcp.Task { return t.task }

// Poll asks the server for the task's state once (tasks/get). For a call
// answered at once it reports a completed task without asking.
func (t *ToolTask) Poll(ctx context.Context, opts ...CallOption) (*mcp.GetTaskResult, error) {
	if t.task == nil {
		b, err := json.Marshal(t.result)
		if err != nil {
			return nil, err
		}
		return &mcp.GetTaskResult{Task: mcp.Task{Status: mcp.TaskCompleted, Result: b}}, nil
	}
	var res mcp.GetTaskResult
	if err := t.c.call(ctx, "tasks/get", &mcp.TaskParams{TaskID: t.task.TaskID}, &res, opts...); err != nil {
		return nil, fmt.Errorf("tasks/get %s: %w", t.task.TaskID, err)
	}
	if res.TaskID != t.task.TaskID {
		return nil, fmt.Errorf("tasks/get %s: the server answered for task %q", t.task.TaskID, res.TaskID)
	}
	return &res, nil
}

// Cancel asks the server to cancel the task (tasks/cancel). Cancelling a
// task that has ended, or a call answered at once, changes nothing.
func (t *ToolTask) Cancel(ctx context.Context, opts ...CallOption) error {
	if t.task == nil {
		return nil
	}
	if err := t.c.call(ctx, "tasks/cancel", &mcp.TaskParams{TaskID: t.task.TaskID}, nil, opts...); err != nil {
		return fmt.Errorf("tasks/cancel %s: %w", t.task.TaskID, err)
	}
	return nil
}

// Await polls the task at the interval the server suggests until it ends
// or its TTL has passed (then ErrTimeout),
// answering its input requests with the Options handlers (tasks/update),
// and returns the tool's result. A failed task is its *mcp.Error; a
// cancelled one ErrTaskCancelled. When ctx ends, Await returns ctx's
// error and the task goes on: Cancel stops it.
func (t *ToolTask) Await(ctx context.Context) (*mcp.CallToolResult, error) {
	if t.task == nil {
		return t.result, nil
	}
	interval := clampPoll(t.task.PollInterval)
	// A server that keeps a task working forever is bounded by the TTL
	// it gave: after it, the task is gone on any honest server.
	var expired <-chan time.Time
	if t.task.TTL > 0 {
		ttl := time.NewTimer(time.Until(t.started.Add(t.task.TTL)))
		defer ttl.Stop()
		expired = ttl.C
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-expired:
			return nil, fmt.Errorf("task %s: %w: still not done when its TTL of %v passed", t.task.TaskID, ErrTimeout, t.task.TTL)
		case <-timer.C:
		}
		st, err := t.Poll(ctx)
		if err != nil {
			return nil, err
		}
		if st.PollInterval > 0 {
			interval = clampPoll(st.PollInterval)
		}
		switch st.Status {
		case mcp.TaskCompleted, mcp.TaskFailed:
			if !t.c.stateless {
				return t.result2025(ctx)
			}
		}
		switch st.Status {
		case mcp.TaskCompleted:
			var res mcp.CallToolResult
			if len(st.Result) == 0 {
				return nil, fmt.Errorf("task %s: completed without a result", t.task.TaskID)
			}
			if err := res.UnmarshalJSON(st.Result); err != nil {
				return nil, fmt.Errorf("task %s: decoding the result: %w", t.task.TaskID, err)
			}
			return &res, nil
		case mcp.TaskFailed:
			if st.Error == nil {
				return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "task " + t.task.TaskID + " failed without an error"}
			}
			return nil, st.Error
		case mcp.TaskCancelled:
			return nil, ErrTaskCancelled
		case mcp.TaskInputRequired:
			sent, err := t.answer(ctx, st.InputRequests)
			if err != nil {
				return nil, err
			}
			if sent {
				timer.Reset(0) // the answers may have finished it
				continue
			}
			// Nothing was asked, so nothing answered: polling again at
			// once would let a server that keeps a task input_required
			// without questions make the client spin.
		}
		timer.Reset(interval)
	}
}

// result2025 fetches the outcome of a terminal 2025-11-25 task with
// tasks/result: its tasks/get does not carry it.
func (t *ToolTask) result2025(ctx context.Context) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := t.c.call(ctx, "tasks/result", &mcp.TaskParams{TaskID: t.task.TaskID}, &res); err != nil {
		return nil, fmt.Errorf("tasks/result %s: %w", t.task.TaskID, err)
	}
	return &res, nil
}

// AwaitAsync is Await returning at once with a Future.
func (t *ToolTask) AwaitAsync(ctx context.Context) *Future[*mcp.CallToolResult] {
	return goFuture(func() (*mcp.CallToolResult, error) { return t.Await(ctx) })
}

// answer fulfils a task's input requests and sends the answers; it
// reports whether it sent any (tasks/update).
func (t *ToolTask) answer(ctx context.Context, reqs mcp.InputRequests) (bool, error) {
	if len(reqs) == 0 {
		return false, nil
	}
	t.inputs += len(reqs)
	if t.inputs > maxTaskInputs {
		return false, fmt.Errorf("task %s: the server asked for input more than %d times", t.task.TaskID, maxTaskInputs)
	}
	answers := mcp.InputResponses{}
	for key, in := range reqs {
		if in == nil {
			continue
		}
		res, err := t.c.fulfil(ctx, in.Method, in.Params)
		if err != nil {
			return false, fmt.Errorf("task %s: answering the server's %s request %q: %w", t.task.TaskID, in.Method, key, err)
		}
		if err := answers.Set(key, res); err != nil {
			return false, err
		}
	}
	p := &mcp.UpdateTaskParams{TaskID: t.task.TaskID, InputResponses: answers}
	if err := t.c.call(ctx, "tasks/update", p, nil); err != nil {
		return false, fmt.Errorf("tasks/update %s: %w", t.task.TaskID, err)
	}
	return true, nil
}

// awaitCall finishes CallTool when the server made the call a task: it
// awaits the task, and cancels it if the caller gives up, as a call's
// cancellation would. The cancellation is sent in the background: the
// caller does not wait for it.
func (c *Client) awaitCall(ctx context.Context, name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	t, err := c.toolTask(name, raw)
	if err != nil {
		return nil, err
	}
	res, err := t.Await(ctx)
	if err != nil && ctx.Err() != nil && t.task != nil {
		go func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = t.Cancel(cctx)
		}()
	}
	return res, err
}

func clampPoll(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return defaultPollInterval
	case d < minPollInterval:
		return minPollInterval
	case d > maxPollInterval:
		return maxPollInterval
	}
	return d
}

// statelessCapabilities are the capabilities a 2026-07-28 request declares:
// those of the legacy era and the extensions the client implements.
func (o *Options) statelessCapabilities() mcp.ClientCapabilities {
	c := o.Capabilities
	if o.DisableTasks {
		return c
	}
	ext := make(map[string]map[string]any, len(c.Extensions)+1)
	for k, v := range c.Extensions {
		ext[k] = v
	}
	if _, ok := ext[mcp.ExtensionTasks]; !ok {
		ext[mcp.ExtensionTasks] = map[string]any{}
	}
	c.Extensions = ext
	return c
}
