//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// exited reports whether pid has exited (a zombie has: it runs nothing).
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// When the bridge is told to stop (SIGTERM) or its client goes away (end
// of standard input), a win_exec still running has its process tree
// killed before the bridge exits; none of it outlives the bridge.
func TestShutdownKillsRunningProcessTrees(t *testing.T) {
	bin := build(t)
	for _, how := range []string{"sigterm", "eof"} {
		t.Run(how, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=sh", "DEFAULT_TIMEOUT_MS=120000")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := client.Connect(ctx, transport.NewStream(transport.NewLineFramer(struct {
				io.Reader
				io.WriteCloser
			}{out, in}, 0), nil), nil)
			if err != nil {
				t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
			}
			defer c.Close()
			// Several trees, so that a bridge that exits without waiting
			// for its handlers loses the race to at least one kill.
			const trees = 8
			for i := range trees {
				go c.CallTool(ctx, "win_exec", map[string]any{"exe": "sh", "args": []string{"-c",
					`sleep 300 & echo $$ $! > "$1.tmp" && mv "$1.tmp" "$1"; wait`, "sh", pidFile + strconv.Itoa(i)}})
			}

			// The trees are other processes' doing: poll for their pid files.
			var pids []int
			defer func() {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}()
			deadline := time.Now().Add(30 * time.Second)
			for i := range trees {
				for {
					b, err := os.ReadFile(pidFile + strconv.Itoa(i))
					if err == nil {
						for _, f := range strings.Fields(string(b)) {
							n, _ := strconv.Atoi(f)
							pids = append(pids, n)
						}
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("win_exec did not start its trees\nstderr: %s", stderr.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
			}

			if how == "sigterm" {
				cmd.Process.Signal(syscall.SIGTERM)
			} else {
				in.Close()
			}
			exitErr := make(chan error, 1)
			go func() { exitErr <- cmd.Wait() }()
			select {
			case <-exitErr:
			case <-time.After(40 * time.Second):
				t.Fatalf("the bridge did not exit\nstderr: %s", stderr.String())
			}
			// The group was sent SIGKILL before the bridge exited; a
			// process takes a moment to die of it.
			for _, p := range pids {
				deadline := time.Now().Add(5 * time.Second)
				for !exited(p) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d of win_exec's tree outlived the bridge\nstderr: %s", p, stderr.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
}

// The same over -http: SIGTERM ends every HTTP session, and the bridge
// exits only once their win_exec handlers have returned, having killed
// their process trees.
func TestHTTPShutdownKillsRunningProcessTrees(t *testing.T) {
	bin := build(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=sh", "DEFAULT_TIMEOUT_MS=120000")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stderr := readLog(pipe)
	url := stderr.waitURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Two sessions, several calls each.
	const sessions, trees = 2, 4
	for s := range sessions {
		stream, err := mcphttp.NewStream(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Connect(ctx, stream, nil)
		if err != nil {
			t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
		}
		defer c.Close()
		for i := range trees {
			go c.CallTool(ctx, "win_exec", map[string]any{"exe": "sh", "args": []string{"-c",
				`sleep 300 & echo $$ $! > "$1.tmp" && mv "$1.tmp" "$1"; wait`, "sh", pidFile + strconv.Itoa(s*trees+i)}})
		}
	}
	var pids []int
	defer func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for i := range sessions * trees {
		for {
			b, err := os.ReadFile(pidFile + strconv.Itoa(i))
			if err == nil {
				for _, f := range strings.Fields(string(b)) {
					n, _ := strconv.Atoi(f)
					pids = append(pids, n)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("win_exec did not start its trees\nstderr: %s", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	cmd.Process.Signal(syscall.SIGTERM)
	exitErr := make(chan error, 1)
	go func() {
		for range stderr.lines {
		}
		exitErr <- cmd.Wait()
	}()
	select {
	case <-exitErr:
	case <-time.After(40 * time.Second):
		t.Fatalf("the bridge did not exit\nstderr: %s", stderr.String())
	}
	for _, p := range pids {
		deadline := time.Now().Add(5 * time.Second)
		for !exited(p) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of win_exec's tree outlived the bridge\nstderr: %s", p, stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
