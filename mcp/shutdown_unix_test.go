//go:build unix

package mcp_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// treeTool starts sh with a background sleep, in a process group of its
// own, and on cancellation kills the group and waits, as win_exec does. It
// reports the pids of both processes on started.
func treeTool(started chan<- [2]int, returned *atomic.Bool) mcp.ToolHandlerFor[struct{}, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		defer returned.Store(true)
		cmd := exec.Command("sh", "-c", `sleep 300 & echo $$ $!; wait`)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		f := strings.Fields(line)
		if len(f) != 2 {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			return nil, nil, errors.New("no pids: " + line)
		}
		sh, _ := strconv.Atoi(f[0])
		sleep, _ := strconv.Atoi(f[1])
		started <- [2]int{sh, sleep}
		<-ctx.Done()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		return nil, nil, ctx.Err()
	}
}

// gone reports whether pid has exited (a zombie has: it runs nothing).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone polls, the only way to learn of another process's end, until
// pid has exited or the deadline passes.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs %v after the server returned", pid, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Run returns, at the end of input or of its context, only once the
// handlers it cancelled have returned: a tool's process tree is gone by
// then, not killed (or not) after the program has exited.
func TestRunWaitsForCancelledHandlers(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, how := range []string{"eof", "ctx"} {
		t.Run(how, func(t *testing.T) {
			started := make(chan [2]int, 1)
			var returned atomic.Bool
			srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "tree"}, treeTool(started, &returned))
			a, b := net.Pipe()
			defer a.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ran := make(chan error, 1)
			go func() {
				ran <- srv.Run(ctx, transport.NewStream(transport.NewLineFramer(b, 0), &transport.StreamOptions{DrainTimeout: -1}))
			}()
			w := &wire{t: t, conn: a, r: bufio.NewReader(a)}
			w.send(initLine)
			w.recv()
			w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tree","arguments":{}}}`)
			var pids [2]int
			select {
			case pids = <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("the tool did not start its processes")
			}
			if how == "eof" {
				a.Close()
			} else {
				cancel()
			}
			select {
			case <-ran:
			case <-time.After(20 * time.Second):
				t.Fatal("Run did not return")
			}
			if !returned.Load() {
				t.Error("Run returned before the cancelled handler did")
			}
			if !gone(pids[0]) {
				t.Errorf("the tool's sh (%d) still runs after Run returned", pids[0])
			}
			waitGone(t, pids[1], 5*time.Second)
		})
	}
}
