//go:build unix

package client

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// prepareCmd puts the child in a process group of its own, so that the
// whole tree it starts (npx and its node, say) can be signalled at once
// with kill(-pgid), and so that a terminal's Ctrl-C reaches us, who then
// shut the server down in order, rather than the server directly.
func prepareCmd(cmd *exec.Cmd, _ string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// procGroup is the child's process group.
type procGroup struct {
	mu   sync.Mutex
	pgid int
	proc *os.Process
}

func (g *procGroup) attach(p *os.Process) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pgid, g.proc = p.Pid, p
	return nil
}

func (g *procGroup) signal(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.proc == nil {
		return
	}
	// The group, and the leader on its own in case it left the group.
	_ = syscall.Kill(-g.pgid, sig)
	_ = g.proc.Signal(sig)
}

// terminate sends SIGTERM to the group; it reports whether the platform
// has such a polite signal at all.
func (g *procGroup) terminate() bool {
	g.signal(syscall.SIGTERM)
	return true
}

// kill sends SIGKILL to the group.
func (g *procGroup) kill() { g.signal(syscall.SIGKILL) }

// release forgets the group once the leader is reaped: its id may be
// reused from then on.
func (g *procGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.proc = nil
}

// exitStatus splits a wait status into an exit code and a signal.
func exitStatus(ps *os.ProcessState) (int, syscall.Signal) {
	if ps == nil {
		return -1, 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return ps.ExitCode(), 0
}
