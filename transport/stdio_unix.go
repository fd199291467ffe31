//go:build unix

package transport

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// divertStdout duplicates descriptor 1 for the protocol and points
// descriptor 1 at standard error.
func divertStdout() (*os.File, func(), error) {
	fd, err := unix.FcntlInt(uintptr(1), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, nil, fmt.Errorf("transport: duplicating stdout: %w", err)
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("transport: pointing stdout at stderr: %w", err)
	}
	saved, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		saved = -1
	}
	restore := func() {
		if saved >= 0 {
			_ = unix.Dup2(saved, 1)
			unix.Close(saved)
		}
	}
	return os.NewFile(uintptr(fd), "protocol-stdout"), restore, nil
}
