//go:build !unix && !windows

package winexec

import "os/exec"

// processTree on platforms without process groups or jobs kills only the
// process itself.
type processTree struct{ proc *exec.Cmd }

func prepareTree(*exec.Cmd, string) {}

func startTree(cmd *exec.Cmd) (processTree, error) { return processTree{cmd}, nil }

func (t processTree) kill() error { return t.proc.Process.Kill() }

func (t processTree) close() {}
