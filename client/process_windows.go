//go:build windows

package client

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// prepareCmd hides the console window a console program would otherwise
// open, and passes a cmd.exe command line verbatim when the program is a
// batch file (see Command.argv): Go's own quoting is not cmd.exe's.
func prepareCmd(cmd *exec.Cmd, cmdline string) {
	attr := &syscall.SysProcAttr{HideWindow: true}
	if cmdline != "" {
		attr.CmdLine = cmdline
	}
	cmd.SysProcAttr = attr
}

// procGroup is a Job Object with kill-on-close holding the child and
// everything it starts: closing the job's last handle, or terminating it,
// ends the whole tree, and if this process dies the system closes the
// handle for us, so no server outlives its client.
//
// The child is assigned right after it starts; a grandchild started in
// that instant would escape the job. Starting suspended would close the
// window but needs resuming the main thread, which os/exec does not
// expose.
type procGroup struct {
	mu   sync.Mutex
	job  windows.Handle
	proc *os.Process
}

func (g *procGroup) attach(p *os.Process) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.proc = p
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return err
	}
	g.job = job
	return nil
}

// terminate reports false: Windows has no SIGTERM for a process without
// a console to send Ctrl-Break to, so the sequence goes straight from
// closing stdin to killing the job.
func (g *procGroup) terminate() bool { return false }

// kill terminates every process in the job.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
	}
	if g.proc != nil {
		_ = g.proc.Kill()
	}
}

// release closes the job handle, which with kill-on-close also ends any
// process still in it.
func (g *procGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
	g.proc = nil
}

// waitExit reports false: the exit is detected by Wait, after which the
// job's leftovers are terminated (the job handle pins nothing reusable).
func waitExit(*os.Process) bool { return false }

// exitStatus returns the exit code; Windows has no signals.
func exitStatus(ps *os.ProcessState) (int, syscall.Signal) {
	if ps == nil {
		return -1, 0
	}
	return ps.ExitCode(), 0
}
