//go:build !unix

package main

import (
	"errors"
	"os/exec"
)

// prepareTree does nothing where there are no process groups; killTree
// then reaches only cdb itself.
func prepareTree(*exec.Cmd) {}

func killTree(cmd *exec.Cmd) error { return cmd.Process.Kill() }

// interrupt is not supported here: a timed-out command ends the session.
func interrupt(*exec.Cmd) error { return errors.ErrUnsupported }
