//go:build windows

package transport

import (
	"os"

	"golang.org/x/sys/windows"
)

// divertStdout keeps the real standard output handle for the protocol and
// makes the process's standard output (for this process and the children it
// starts) standard error.
func divertStdout() (*os.File, func(), error) {
	out := os.Stdout
	stdout, _ := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE)
	stderr, _ := windows.GetStdHandle(windows.STD_ERROR_HANDLE)
	_ = windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, stderr)
	os.Stdout = os.Stderr
	restore := func() {
		_ = windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, stdout)
		os.Stdout = out
	}
	// The protocol writes to its own *os.File so that closing the stream
	// does not close the handle os.Stdout had.
	dup := os.NewFile(uintptr(stdout), "protocol-stdout")
	return dup, restore, nil
}

// pollableStdin returns os.Stdin: Windows pipes are not served by the poller.
func pollableStdin() (*os.File, func()) { return os.Stdin, func() {} }
