package mcp

import (
	"encoding/json"
	"time"
)

// This file holds the wire types of tasks, the io.modelcontextprotocol/tasks
// extension of 2026-07-28 (SEP-2663): a tool call the server chooses to
// finish in the background answers with a CreateTaskResult, and the client
// polls tasks/get until the task is terminal, answers its input requests
// with tasks/update, and may stop it with tasks/cancel. The result outlives
// the request that started the task, for the task's TTL.

// ExtensionTasks is the extension identifier of tasks, the key under
// capabilities.extensions that client and server declare.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultTask is the resultType of a CreateTaskResult.
const ResultTask = "task"

// TaskSupport says whether a tool's calls may run as tasks.
type TaskSupport string

const (
	// TaskForbidden tools always answer synchronously (the default).
	TaskForbidden TaskSupport = "forbidden"
	// TaskOptional tools run as tasks for clients that support tasks, and
	// synchronously for the others.
	TaskOptional TaskSupport = "optional"
	// TaskRequired tools run only as tasks; a client that does not
	// support tasks gets a CodeMissingClientCapability error.
	TaskRequired TaskSupport = "required"
)

// ToolExecution is how a tool runs.
type ToolExecution struct {
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
	// HandlerStartsTask means the server does not start the task itself:
	// the handler runs as for any call and calls RunAsTask where the work
	// goes to the background, typically after gathering input by multi
	// round-trip. Not sent on the wire.
	HandlerStartsTask bool `json:"-"`
}

// taskSupport is the tool's task support, forbidden when unset.
func (e *ToolExecution) taskSupport() TaskSupport {
	if e == nil || (e.TaskSupport != TaskOptional && e.TaskSupport != TaskRequired) {
		return TaskForbidden
	}
	return e.TaskSupport
}

// TaskStatus is the state of a task.
type TaskStatus string

const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the status is final.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is what a server says about a task: in a CreateTaskResult, in the
// answer to tasks/get (with Result, Error or InputRequests as the status
// calls for), and what a TaskStore keeps.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	LastUpdatedAt time.Time  `json:"lastUpdatedAt"`
	// TTL is how long after its creation the task and its result are
	// kept; the wire carries integer milliseconds.
	TTL time.Duration `json:"-"`
	// PollInterval is how often the server suggests polling tasks/get.
	PollInterval time.Duration `json:"-"`

	// Result is the tool's result of a completed task, as encoded JSON.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the protocol error of a failed task.
	Error *Error `json:"error,omitempty"`
	// InputRequests are what an input_required task waits for; the client
	// answers with tasks/update under the same keys.
	InputRequests InputRequests `json:"inputRequests,omitzero"`

	// Principal is who started the task, as the transport's authorization
	// established it (ServerSession.BindPrincipal); "" when there was none.
	// The server shows a task only to requests of the same principal, so a
	// TaskStore must keep it. It is not sent on the wire.
	Principal string `json:"-"`

	owner *ServerSession // the legacy session whose task it is; nil for stateless
}

// taskFields is Task without its methods, for embedding.
type taskFields Task

// taskWire is Task on the wire.
type taskWire struct {
	ResultType string `json:"resultType,omitempty"`
	taskFields
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
	Meta           Meta   `json:"_meta,omitzero"`
}

func (t *Task) wire(resultType string, meta Meta) *taskWire {
	w := &taskWire{ResultType: resultType, taskFields: taskFields(*t), PollIntervalMs: t.PollInterval.Milliseconds(), Meta: meta}
	w.CreatedAt, w.LastUpdatedAt = t.CreatedAt.UTC(), t.LastUpdatedAt.UTC()
	if t.TTL > 0 {
		w.TTLMs = Ptr(t.TTL.Milliseconds())
	}
	return w
}

// MarshalJSON implements json.Marshaler: ttlMs and pollIntervalMs are
// integer milliseconds.
func (t *Task) MarshalJSON() ([]byte, error) { return json.Marshal(t.wire("", nil)) }

// UnmarshalJSON implements json.Unmarshaler. It reads the durations of
// either revision: ttlMs and pollIntervalMs, or 2025-11-25's ttl and
// pollInterval.
func (t *Task) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*taskFields)(t)); err != nil {
		return err
	}
	return decodeTaskFields(b, t)
}

// TaskParams are the params of tasks/get and tasks/cancel.
type TaskParams struct {
	TaskID string `json:"taskId"`
	Meta   Meta   `json:"_meta,omitzero"`
}

// UpdateTaskParams are the params of tasks/update: answers to the input
// requests of an input_required task.
type UpdateTaskParams struct {
	TaskID         string         `json:"taskId"`
	InputResponses InputResponses `json:"inputResponses"`
	Meta           Meta           `json:"_meta,omitzero"`
}

// GetTaskResult answers tasks/get.
type GetTaskResult struct {
	Task
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler.
func (r *GetTaskResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.Task.wire(r.ResultType, r.Meta))
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *GetTaskResult) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.Task); err != nil {
		return err
	}
	return json.Unmarshal(b, &r.ResultEnvelope)
}

// CreateTaskResult answers a tools/call that became a task: the task's
// metadata only, at the top level of the result.
type CreateTaskResult struct {
	Task
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; an empty ResultType encodes as
// "task", and no result, error or input requests are sent.
func (r *CreateTaskResult) MarshalJSON() ([]byte, error) {
	t := r.Task
	t.Result, t.Error, t.InputRequests = nil, nil, nil
	rt := r.ResultType
	if rt == "" {
		rt = ResultTask
	}
	return json.Marshal(t.wire(rt, r.Meta))
}

// UnmarshalJSON implements json.Unmarshaler. It reads the task at the top
// level (2026-07-28) or nested under "task" (2025-11-25).
func (r *CreateTaskResult) UnmarshalJSON(b []byte) error {
	var nested struct {
		Task json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(b, &nested); err != nil {
		return err
	}
	inner := b
	if len(nested.Task) > 0 && string(nested.Task) != "null" {
		inner = nested.Task
	}
	if err := json.Unmarshal(inner, &r.Task); err != nil {
		return err
	}
	return json.Unmarshal(b, &r.ResultEnvelope)
}
