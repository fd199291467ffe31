//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/internal/proctest"
)

// SIGTERM stops mcpc as Ctrl-C does: the server it started, and what the
// server started, are killed before mcpc exits, not orphaned.
func TestSIGTERMKillsServerTree(t *testing.T) {
	mcpcBin := peertest.BuildGo(t, "./examples/mcpc")
	pidFile := filepath.Join(t.TempDir(), "pids")
	// A "server" that starts a child of its own, records both process ids
	// and never answers.
	script := `sleep 1000 & echo $$ $! > "$1.tmp" && mv "$1.tmp" "$1"; wait`
	cmd := exec.Command(mcpcBin, "--timeout", "1m", "tools", "--", "sh", "-c", script, "sh", pidFile)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
	}()

	var pids []int
	if !poll(10*time.Second, func() bool { // the server is another process: nothing to wait on
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pids = nil
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		return len(pids) == 2
	}) {
		t.Fatalf("the server did not start; stderr: %s", stderr.String())
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
			t.Errorf("mcpc ended with %v, want exit status %d; stderr: %s", err, exitFailure, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("mcpc did not exit after SIGTERM")
	}
	for _, pid := range pids {
		if !poll(5*time.Second, func() bool { return proctest.Gone(pid) }) {
			t.Errorf("process %d of the server's tree outlived mcpc", pid)
		}
	}
}

// poll checks cond every few milliseconds until it holds or d passes.
func poll(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronization
	}
}
