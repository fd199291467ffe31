package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// stubbornTasks is a server whose tool "hold" runs only as a task and
// ignores its context: it returns when the test closes release, as a tool
// still killing a process tree might. returned receives once per handler
// that has returned and stopped counting against the task limits.
func stubbornTasks(t *testing.T, opts *ServerOptions) (srv *Server, release chan struct{}, returned chan struct{}) {
	t.Helper()
	noLeaks(t)
	if opts == nil {
		opts = &ServerOptions{}
	}
	opts.Logger = quietLogger()
	srv = NewServer(&Implementation{Name: "s", Version: "1"}, opts)
	release, returned = make(chan struct{}), make(chan struct{}, 16)
	srv.taskReturned = func() { returned <- struct{}{} }
	AddTool(srv, &Tool{Name: "hold", Execution: &ToolExecution{TaskSupport: TaskRequired}},
		func(context.Context, *CallToolRequest, struct{}) (*CallToolResult, any, error) {
			<-release
			return &CallToolResult{Content: []Content{&TextContent{Text: "late"}}}, nil, nil
		})
	return srv, release, returned
}

const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// startHold starts a hold task in a stateless request of ss and returns
// the answer and the task's ID ("" when refused).
func startHold(t *testing.T, ss *ServerSession) (string, string) {
	t.Helper()
	return startTool(t, ss, "hold")
}

func getTask(t *testing.T, ss *ServerSession, id string) string {
	t.Helper()
	var got string
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+tasksMeta+`}}`),
		func(b []byte) { got = string(b) })
	return got
}

// noLeaks fails the test if goroutines it started outlive it; called
// first, its cleanup runs last.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("leaked goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(2 * time.Millisecond) // polling under a deadline
		}
	})
}

func await(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// A task whose handler ignores its context keeps counting against
// MaxTasks and MaxTasksPerPrincipal after its TTL has passed, until the
// handler returns. Before, the expiry deleted it from the store, which is
// what counted: a client could start tasks that outlive their TTL one
// after another, each a goroutine no bound saw. Its result, when it
// finally comes, is dropped: the task stays unknown.
func TestStubbornTaskCountsPastTTL(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      ServerOptions
		principal string
	}{
		{"MaxTasks", ServerOptions{MaxTasks: 1}, ""},
		{"MaxTasksPerPrincipal", ServerOptions{MaxTasks: 8, MaxTasksPerPrincipal: 1}, "alice"},
		// A custom store bounds what it holds itself; the handlers
		// running here are still this server's to bound.
		{"custom store", ServerOptions{MaxTasks: 1, TaskStore: &MemoryTaskStore{Max: 100}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, release, returned := stubbornTasks(t, &tc.opts)
			ss := stateSession(t, srv, tc.principal)
			got, id := startHold(t, ss)
			if id == "" {
				t.Fatalf("first task: %s", got)
			}
			srv.running(id).expire() // its TTL passes; the handler holds on
			if got := getTask(t, ss, id); !strings.Contains(got, `"code":-32602`) {
				t.Fatalf("tasks/get of an expired task: %s", got)
			}
			if got, id2 := startHold(t, ss); id2 != "" || !strings.Contains(got, `"code":-32010`) {
				t.Fatalf("a task while an expired one's handler still runs, at the bound: %s; want -32010", got)
			}
			close(release)
			await(t, returned, "the stubborn handler to return")
			if got := getTask(t, ss, id); !strings.Contains(got, `"code":-32602`) || strings.Contains(got, "late") {
				t.Fatalf("tasks/get after the expired task's handler returned: %s; want it still unknown", got)
			}
			if got, id2 := startHold(t, ss); id2 == "" {
				t.Fatalf("a task once the stubborn handler returned: %s", got)
			}
			srv.CancelTasks()
			await(t, returned, "the second handler to return")
			// The second, cancelled, is kept (and counts) until its TTL
			// with the default store; with a custom store, tasks count
			// while their handlers run.
			want := 1
			if tc.opts.TaskStore != nil {
				want = 0
			}
			if n := srv.tasksCounted(); n != want {
				t.Fatalf("%d tasks counted once both handlers returned, want %d", n, want)
			}
		})
	}
}

// A legacy session's tasks are forgotten when it ends, but one whose
// handler ignores its cancellation still counts until it returns: before,
// a client could start tasks, end its session and start more, each
// leaving a goroutine behind.
func TestStubbornTaskCountsPastSessionEnd(t *testing.T) {
	srv, release, returned := stubbornTasks(t, &ServerOptions{MaxTasks: 1})
	a, legacy, id := legacyHoldTask(t, srv)
	a.Close()
	<-legacy.Done()
	// Its tasks are cancelled and forgotten just after Done: polling for
	// the store to drop it under a deadline, not synchronising.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := srv.tasks.Get(context.Background(), id); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ended session's task is still stored")
		}
	}

	ss := stateSession(t, srv, "")
	if got, id := startHold(t, ss); id != "" || !strings.Contains(got, `"code":-32010`) {
		t.Fatalf("a task while an ended session's handler still runs, at the bound: %s; want -32010", got)
	}
	close(release)
	await(t, returned, "the stubborn handler to return")
	// The session's end forgets its tasks just after Done: polling for
	// the count under a deadline, not synchronising.
	for deadline := time.Now().Add(5 * time.Second); srv.tasksCounted() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks counted once the ended session's handler returned", srv.tasksCounted())
		}
		time.Sleep(time.Millisecond)
	}
	if got, id := startHold(t, ss); id == "" {
		t.Fatalf("a task once the stubborn handler returned: %s", got)
	}
	srv.CancelTasks()
	await(t, returned, "the second handler to return")
}

// A cancelled task whose handler ignores its cancellation stays
// cancelled: what the handler returns later is dropped, and the task
// counts until then.
func TestStubbornTaskCancelledResultDropped(t *testing.T) {
	srv, release, returned := stubbornTasks(t, &ServerOptions{MaxTasks: 1})
	ss := stateSession(t, srv, "")
	got, id := startHold(t, ss)
	if id == "" {
		t.Fatalf("task: %s", got)
	}
	var cancelled string
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"`+id+`",`+tasksMeta+`}}`),
		func(b []byte) { cancelled = string(b) })
	if !strings.Contains(cancelled, `"result"`) {
		t.Fatalf("tasks/cancel: %s", cancelled)
	}
	if got, id2 := startHold(t, ss); id2 != "" || !strings.Contains(got, `"code":-32010`) {
		t.Fatalf("a task while a cancelled one's handler still runs, at the bound: %s; want -32010", got)
	}
	close(release)
	await(t, returned, "the stubborn handler to return")
	if got := getTask(t, ss, id); !strings.Contains(got, `"status":"cancelled"`) || strings.Contains(got, "late") {
		t.Fatalf("tasks/get of the cancelled task once its handler returned: %s; want it still cancelled, without the result", got)
	}
	if n := srv.tasksCounted(); n != 1 {
		t.Fatalf("%d tasks counted; want the cancelled one, kept until its TTL", n)
	}
}

// legacyHoldTask starts the tool "hold" of stubbornTasks' srv as a task
// in a legacy session over a pipe, and returns the pipe's client end, the
// session and the task's id.
func legacyHoldTask(t *testing.T, srv *Server) (conn net.Conn, legacy *ServerSession, id string) {
	t.Helper()
	a, b := net.Pipe()
	legacy = srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	r := bufio.NewReader(a)
	exchange := func(line string) string {
		t.Helper()
		a.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := a.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		for {
			got, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, `"method":"notifications/`) {
				return got
			}
		}
	}
	exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	a.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	got := exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{},"task":{}}}`)
	if json.Unmarshal([]byte(got), &created); created.Result.Task.TaskID == "" {
		t.Fatalf("legacy task: %s", got)
	}
	return a, legacy, created.Result.Task.TaskID
}
