//go:build !unix && !windows

package client

import (
	"os"
	"os/exec"
	"syscall"
)

// On platforms without process groups or job objects only the child
// itself can be stopped.

func prepareCmd(*exec.Cmd, string) {}

type procGroup struct{ proc *os.Process }

func (g *procGroup) attach(p *os.Process) error { g.proc = p; return nil }
func (g *procGroup) terminate() bool            { return false }
func (g *procGroup) kill() {
	if g.proc != nil {
		_ = g.proc.Kill()
	}
}
func (g *procGroup) release()   {}
func waitExit(*os.Process) bool { return false }
func exitStatus(ps *os.ProcessState) (int, syscall.Signal) {
	if ps == nil {
		return -1, 0
	}
	return ps.ExitCode(), 0
}
