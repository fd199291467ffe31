package mcp

import (
	"encoding/json"
	"time"
)

// This file holds the wire of the tasks of 2025-11-25 (SEP-1686), which the
// 2026-07-28 extension replaced: the client asks for a task with the task
// param of tools/call, the CreateTaskResult nests the task under "task",
// durations are "ttl" and "pollInterval", the result is fetched with
// tasks/result, tasks/list lists them, and the server sends
// notifications/tasks/status. A legacy session's tasks are its own: no
// other session sees them, and they end with it.

// TaskMetadata is the task param of a task-augmented request (2025-11-25):
// the TTL the client asks for, in milliseconds.
type TaskMetadata struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// MetaRelatedTask is the _meta key that ties a message to its task
// (2025-11-25).
const MetaRelatedTask = "io.modelcontextprotocol/related-task"

// taskLegacy is a Task as 2025-11-25 sends it.
type taskLegacy struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	LastUpdatedAt time.Time  `json:"lastUpdatedAt"`
	TTL           *int64     `json:"ttl"`
	PollInterval  int64      `json:"pollInterval,omitempty"`
}

func (t *Task) legacy() taskLegacy {
	w := taskLegacy{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt.UTC(), LastUpdatedAt: t.LastUpdatedAt.UTC(), PollInterval: t.PollInterval.Milliseconds()}
	if t.TTL > 0 {
		w.TTL = Ptr(t.TTL.Milliseconds())
	}
	return w
}

// taskResultLegacy answers tasks/get and tasks/cancel (Result & Task).
type taskResultLegacy struct {
	taskLegacy
	Meta Meta `json:"_meta,omitzero"`
}

// createTaskResultLegacy answers a task-augmented tools/call.
type createTaskResultLegacy struct {
	Task taskLegacy `json:"task"`
	Meta Meta       `json:"_meta,omitzero"`
}

// listTasksResultLegacy answers tasks/list.
type listTasksResultLegacy struct {
	Tasks      []taskLegacy `json:"tasks"`
	NextCursor string       `json:"nextCursor,omitempty"`
	Meta       Meta         `json:"_meta,omitzero"`
}

// decodeTaskFields fills the members of t that the two revisions name
// differently: ttl / ttlMs and pollInterval / pollIntervalMs, whichever
// b has.
func decodeTaskFields(b []byte, t *Task) error {
	var v struct {
		TTLMs          *int64 `json:"ttlMs"`
		TTL            *int64 `json:"ttl"`
		PollIntervalMs *int64 `json:"pollIntervalMs"`
		PollInterval   *int64 `json:"pollInterval"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	ttl, poll := v.TTLMs, v.PollIntervalMs
	if ttl == nil {
		ttl = v.TTL
	}
	if poll == nil {
		poll = v.PollInterval
	}
	t.TTL, t.PollInterval = 0, 0
	if ttl != nil && *ttl > 0 {
		t.TTL = time.Duration(*ttl) * time.Millisecond
	}
	if poll != nil && *poll > 0 {
		t.PollInterval = time.Duration(*poll) * time.Millisecond
	}
	return nil
}
