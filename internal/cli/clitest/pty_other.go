//go:build !linux

package clitest

import (
	"os"
	"testing"
)

// OpenPTY skips the test: the test pty is opened the Linux way only.
func OpenPTY(t testing.TB) (ptmx, tty *os.File) {
	t.Helper()
	t.Skip("the test pseudo-terminal is opened only on Linux")
	return nil, nil
}
