//go:build unix

package main

import (
	"errors"
	"os/exec"
	"syscall"
)

// prepareTree puts the child in a process group of its own. Under wine
// every Windows process of the session is a Linux process in that group;
// under WSL interop the group holds the relay that runs cdb.exe, and WSL
// ends cdb.exe when the relay dies.
func prepareTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killTree kills the child's process group.
func killTree(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// interrupt sends SIGINT to the child's process group, the Unix face of
// CTRL+C: wine turns it into a console control event; through WSL interop
// it is best-effort.
func interrupt(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
}
