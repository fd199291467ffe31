package proctest

import (
	"os"
	"os/exec"
	"testing"
)

// A running process is not gone; once it has exited and been reaped, it
// is; and while it is a zombie (exited, not reaped), it is too.
func TestGone(t *testing.T) {
	if Gone(os.Getpid()) {
		t.Fatal("this process is gone")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if Gone(pid) {
		t.Fatal("a running child is gone")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: a zombie, which counts as gone. Wait until the
	// kernel has made it one (the kill is asynchronous).
	for !Gone(pid) {
		// Bounded by the test's timeout; a killed process dies at once.
	}
	_ = cmd.Wait()
	if !Gone(pid) {
		t.Fatal("a reaped child is not gone")
	}
}
