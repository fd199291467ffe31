//go:build unix

package winexec

import (
	"errors"
	"os/exec"
	"syscall"
)

// processTree is what a timeout kills: on Unix the process group the child
// leads. Under wine every Windows process is a Linux process in that group,
// so this also kills a wine program's descendants; under WSL interop it
// only reaches the Linux side (see Direct).
type processTree struct{ pid int }

func prepareTree(cmd *exec.Cmd, _ string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func startTree(cmd *exec.Cmd) (processTree, error) {
	return processTree{pid: cmd.Process.Pid}, nil
}

func (t processTree) kill() error {
	err := syscall.Kill(-t.pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func (t processTree) close() {}
