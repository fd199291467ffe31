//go:build windows

package winexec

import (
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// processTree is what a timeout kills: on Windows a Job Object holding the
// child, which its descendants join automatically. The job is not
// kill-on-close: a daemon started by a successful run (hdc's server) must
// outlive our handle. The child is assigned
// right after it starts; a grandchild it creates in that instant escapes,
// because os/exec cannot start a process suspended and resume it.
type processTree struct {
	job  windows.Handle
	proc *exec.Cmd
}

func prepareTree(cmd *exec.Cmd, cmdline string) {
	// Our own command line, so argv reaches the program exactly as
	// BuildCommandLine promises (or verbatim for Request.CommandLine).
	if cmdline == "" {
		cmdline = BuildCommandLine(cmd.Args[0], cmd.Args[1:])
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdline}
}

func startTree(cmd *exec.Cmd) (processTree, error) {
	t := processTree{proc: cmd}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return t, fmt.Errorf("CreateJobObject: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return t, fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return t, fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	t.job = job
	return t, nil
}

func (t processTree) kill() error {
	if t.job == 0 {
		return t.proc.Process.Kill()
	}
	return windows.TerminateJobObject(t.job, 1)
}

func (t processTree) close() {
	if t.job != 0 {
		windows.CloseHandle(t.job)
	}
}
