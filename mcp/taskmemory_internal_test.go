package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// startTool starts tool name as a task in a stateless request of ss and
// returns its ID ("" when refused) with the answer.
func startTool(t *testing.T, ss *ServerSession, name string) (string, string) {
	t.Helper()
	var got string
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{},`+tasksMeta+`}}`),
		func(b []byte) { got = string(b) })
	var v struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(got), &v)
	return got, v.Result.TaskID
}

// A synchronous call's result goes out and is freed; a task's is held for
// the task's TTL (an hour by default). A tool whose result grows with
// what the client asks (a file read, a query) let one client make the
// server hold MaxTasks such results at once, gigabytes, for an hour. The
// results the default store holds are bounded together
// (MaxTaskResultMemory) and per principal (a quarter of it): a result
// that does not fit fails its task with -32010, and others still fit
// theirs. An expired task gives its room back.
func TestTaskResultMemoryBounded(t *testing.T) {
	noLeaks(t)
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{Logger: quietLogger(), MaxTaskResultMemory: 4000})
	returned := make(chan struct{}, 8)
	srv.taskReturned = func() { returned <- struct{}{} }
	for name, n := range map[string]int{"big": 1500, "small": 300} {
		AddTool(srv, &Tool{Name: name, Execution: &ToolExecution{TaskSupport: TaskRequired}},
			func(context.Context, *CallToolRequest, struct{}) (*CallToolResult, any, error) {
				return &CallToolResult{Content: []Content{&TextContent{Text: strings.Repeat("x", n)}}}, nil, nil
			})
	}
	alice := stateSession(t, srv, "alice")
	bob := stateSession(t, srv, "bob")
	run := func(ss *ServerSession, name string) (id, task string) {
		t.Helper()
		got, id := startTool(t, ss, name)
		if id == "" {
			t.Fatalf("starting %s: %s", name, got)
		}
		await(t, returned, "the task's handler to return")
		return id, getTask(t, ss, id)
	}
	// Alice's share is a quarter: 1000 bytes. Her big result does not
	// fit; her small one does.
	if _, got := run(alice, "big"); !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, "-32010") {
		t.Fatalf("a result past the principal's share: %s; want a failed task, -32010", got)
	}
	small, got := run(alice, "small")
	if !strings.Contains(got, `"status":"completed"`) {
		t.Fatalf("a result within the share: %s", got)
	}
	// Bob's share is his own.
	if _, got := run(bob, "small"); !strings.Contains(got, `"status":"completed"`) {
		t.Fatalf("another principal's result: %s", got)
	}
	if n := srv.taskResultBytes(); n == 0 {
		t.Fatal("no result bytes counted")
	}
	// Expired, a task gives its room back.
	before := srv.taskResultBytes()
	srv.expireTask(small)
	if n := srv.taskResultBytes(); n >= before {
		t.Fatalf("result bytes after expiry: %d, before %d", n, before)
	}
}

// expireTask runs the expiry of a task still counted, as its TTL's timer
// would.
func (s *Server) expireTask(id string) {
	s.taskMu.Lock()
	run := s.counted[id]
	s.taskMu.Unlock()
	run.expire()
}
