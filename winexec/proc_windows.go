//go:build windows

package winexec

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/winbridge/winbridge/winexec/internal/winjob"
)

// processTree is what a timeout kills: on Windows a Job Object holding the
// child, which its descendants join and cannot break away from. The child
// starts suspended and runs only once it is in the job, so no grandchild
// is created outside it. The job is kill-on-close, so the tree also dies
// when this process does; a run that ends normally releases it, because a
// daemon the program started (hdc's server) must outlive our handle.
type processTree struct {
	job  *winjob.Job
	proc *exec.Cmd
}

func prepareTree(cmd *exec.Cmd, cmdline string) {
	// Our own command line, so argv reaches the program exactly as
	// BuildCommandLine promises (or verbatim for Request.CommandLine).
	if cmdline == "" {
		cmdline = BuildCommandLine(cmd.Args[0], cmd.Args[1:])
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdline, CreationFlags: windows.CREATE_SUSPENDED}
}

// startTree puts the suspended child into a new job and resumes it. When
// the job cannot be set up the child still runs (a timeout then kills only
// the process), and the error says why.
func startTree(cmd *exec.Cmd) (processTree, error) {
	t := processTree{proc: cmd}
	job, err := winjob.New()
	if err == nil {
		if err = job.AssignPID(cmd.Process.Pid); err != nil {
			job.Close()
		} else {
			t.job = job
		}
	}
	if rerr := winjob.ResumeProcess(cmd.Process.Pid); rerr != nil {
		// A child that cannot be resumed would hang until the timeout.
		if t.job != nil {
			t.job.Close()
			t.job = nil
		}
		_ = cmd.Process.Kill()
		return t, rerr
	}
	return t, err
}

func (t processTree) kill() error {
	if t.job == nil {
		return t.proc.Process.Kill()
	}
	return t.job.Terminate(1)
}

// close releases the job after the run: a killed tree is gone already,
// and what a normal run left behind keeps running.
func (t processTree) close() {
	if t.job != nil {
		_ = t.job.Release()
	}
}
