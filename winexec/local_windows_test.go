//go:build windows

package winexec

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests run on Windows only; under wine with a cross-compiled test
// binary (TestWineLocalWindowsJob builds and runs it). The test binary is
// its own helper program.

// heartbeatFile returns a heartbeat path in a new temporary directory.
// Not t.TempDir: under wine its cleanup fails (os.RemoveAll asks for POSIX
// delete semantics, which wine lacks); os.Remove uses the classic calls.
func heartbeatFile(t *testing.T) string {
	dir, err := os.MkdirTemp("", "winexec-hb-")
	if err != nil {
		t.Fatal(err)
	}
	hb := filepath.Join(dir, "heartbeat")
	t.Cleanup(func() {
		os.Remove(hb)
		os.Remove(dir)
	})
	return hb
}

// startScript is the cmd.exe command that starts a heartbeat grandchild in
// a new console with start, then waits for it in the foreground.
func startScript(t *testing.T, hb string) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return `start "" "` + self + `" heartbeat "` + hb + `" & "` + self + `" waitfile "` + hb + `"`
}

// requireStopped fails unless the heartbeat in hb stops changing.
func requireStopped(t *testing.T, hb string) {
	t.Helper()
	if err := pollUntil(10*time.Second, func() bool { return settled(hb, 500*time.Millisecond) }); err != nil {
		t.Fatal("the grandchild still writes heartbeats")
	}
}

// settled reports whether path stays the same for d.
func settled(path string, d time.Duration) bool {
	last, _ := os.ReadFile(path)
	return pollUntil(d, func() bool {
		now, _ := os.ReadFile(path)
		return !bytes.Equal(now, last)
	}) != nil
}

// TestLocalWindowsJobKillsStartedGrandchild: a timeout kills a grandchild
// that cmd /c start created in a new console.
func TestLocalWindowsJobKillsStartedGrandchild(t *testing.T) {
	hb := heartbeatFile(t)
	req := Request{Exe: "cmd.exe", Args: []string{"/C", startScript(t, hb)}, Env: map[string]string{helperEnv: "1"}, Timeout: 15 * time.Second}
	if err := applyCmdRule(&req); err != nil {
		t.Fatal(err)
	}
	res, err := (&Local{}).Run(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || !strings.Contains(string(res.Stdout.Bytes()), "grandchild-up") {
		t.Fatalf("timedOut %v stdout %q stderr %q", res.TimedOut, res.Stdout.Bytes(), res.Stderr.Bytes())
	}
	requireStopped(t, hb)
}

// TestLocalWindowsJobDiesWithServer: when the process running Local dies
// (killed, crashed) in the middle of a run, the job's kill-on-close takes
// the tree with it. The old job, not kill-on-close, left it running.
func TestLocalWindowsJobDiesWithServer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hb := heartbeatFile(t)
	srv := exec.Command(self, "localtree", hb, startScript(t, hb))
	srv.Env = append(os.Environ(), helperEnv+"=1")
	// A surviving tree holds the server's stdout: Wait must not wait for it.
	srv.WaitDelay = time.Second
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.Contains(line, "tree-up") {
		srv.Process.Kill()
		srv.Wait()
		t.Fatalf("server said %q", line)
	}
	if err := srv.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.Wait()
	requireStopped(t, hb)
}
