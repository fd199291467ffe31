package mcp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrTaskNotFound is returned by a TaskStore for a task it does not hold:
// never created, deleted, or past its TTL.
var ErrTaskNotFound = errors.New("mcp: task not found")

// ErrTaskLimit is returned by a TaskStore that holds as many tasks as it
// may; the call that would have created a task fails with CodeServerBusy.
var ErrTaskLimit = errors.New("mcp: too many tasks")

// TaskStore keeps the tasks of a Server: their status, and their result
// once terminal, for their TTL. The server writes a task on every change of
// status and reads it for tasks/get. Implementations must be safe for
// concurrent use; each call gets and returns copies.
//
// The work of a running task (its goroutine, its cancellation, the answers
// it waits for) lives in the process that started it; a store shared by
// replicas lets any of them answer tasks/get, while tasks/update and
// tasks/cancel reach the task only on the replica that runs it.
type TaskStore interface {
	// Put stores t under t.TaskID, replacing what was there. Adding a
	// new task to a full store fails with ErrTaskLimit.
	Put(ctx context.Context, t *Task) error
	// Get returns the task, or ErrTaskNotFound.
	Get(ctx context.Context, id string) (*Task, error)
	// Delete removes the task; deleting an absent task is no error.
	Delete(ctx context.Context, id string) error
}

// DefaultMaxTasks is the bound of the in-memory task store when
// ServerOptions.MaxTasks is zero.
const DefaultMaxTasks = 1024

// MemoryTaskStore is the default TaskStore: tasks in memory, at most Max of
// them (DefaultMaxTasks when zero), each dropped once its TTL has passed.
// A full store refuses new tasks rather than dropping one whose TTL has
// not passed: clients may rely on a task for its whole TTL. The zero value
// is ready to use.
type MemoryTaskStore struct {
	Max int
	// MaxPerPrincipal bounds the tasks of one principal (Task.Principal,
	// set where the transport authorizes requests), so that one user
	// cannot fill the store for all; zero means a quarter of Max, negative
	// means no bound of its own. Tasks without a principal share Max only.
	MaxPerPrincipal int

	mu    sync.Mutex
	tasks map[string]*Task
	now   func() time.Time // for tests
}

func (m *MemoryTaskStore) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

// expired reports whether t is past its TTL.
func (m *MemoryTaskStore) expired(t *Task, now time.Time) bool {
	return t.TTL > 0 && now.Sub(t.CreatedAt) >= t.TTL
}

// Put implements TaskStore.
func (m *MemoryTaskStore) Put(_ context.Context, t *Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasks == nil {
		m.tasks = map[string]*Task{}
	}
	if _, ok := m.tasks[t.TaskID]; !ok {
		limit := m.Max
		if limit <= 0 {
			limit = DefaultMaxTasks
		}
		perLimit := m.MaxPerPrincipal
		if perLimit == 0 {
			perLimit = max(1, limit/4)
		}
		bounded := t.Principal != "" && perLimit > 0
		if len(m.tasks) >= limit || bounded && m.countLocked(t.Principal) >= perLimit {
			m.sweepLocked()
		}
		if len(m.tasks) >= limit || bounded && m.countLocked(t.Principal) >= perLimit {
			return ErrTaskLimit
		}
	}
	c := *t
	m.tasks[t.TaskID] = &c
	return nil
}

// sweepLocked drops the tasks past their TTL.
func (m *MemoryTaskStore) sweepLocked() {
	now := m.clock()
	for id, old := range m.tasks {
		if m.expired(old, now) {
			delete(m.tasks, id)
		}
	}
}

// countLocked counts the tasks of principal p.
func (m *MemoryTaskStore) countLocked(p string) int {
	n := 0
	for _, t := range m.tasks {
		if t.Principal == p {
			n++
		}
	}
	return n
}

// Get implements TaskStore.
func (m *MemoryTaskStore) Get(_ context.Context, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok {
		return nil, ErrTaskNotFound
	}
	if m.expired(t, m.clock()) {
		delete(m.tasks, id)
		return nil, ErrTaskNotFound
	}
	c := *t
	return &c, nil
}

// Delete implements TaskStore.
func (m *MemoryTaskStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.tasks, id)
	m.mu.Unlock()
	return nil
}
