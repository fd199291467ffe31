package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a log sink written by the task's goroutine and read by
// the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Without authorization a 2026-07-28 task ID is the only key to its task:
// whoever reads it may fetch the result, answer the task's questions and
// cancel it. The server logged it whole when a task panicked or could not
// be stored, handing the task to every reader of the logs. Log lines name
// a task by a digest of its ID, as mcphttp names sessions.
func TestTaskIDNotLogged(t *testing.T) {
	var logs lockedBuffer
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	returned := make(chan struct{}, 1)
	srv.taskReturned = func() { returned <- struct{}{} }
	AddTool(srv, &Tool{Name: "hold", Execution: &ToolExecution{TaskSupport: TaskRequired}},
		func(context.Context, *CallToolRequest, struct{}) (*CallToolResult, any, error) {
			panic("boom")
		})
	ss := stateSession(t, srv, "")
	got, id := startHold(t, ss)
	if id == "" {
		t.Fatalf("starting the task: %s", got)
	}
	await(t, returned, "the task's handler to return")
	out := logs.String()
	if !strings.Contains(out, "task panicked") {
		t.Fatalf("the panic was not logged: %s", out)
	}
	if strings.Contains(out, id) {
		t.Errorf("the log holds the task's ID: %s", out)
	}
	if !strings.Contains(out, taskRef(id).Value.String()) {
		t.Errorf("the log does not name the task by its digest %s: %s", taskRef(id).Value, out)
	}
}
