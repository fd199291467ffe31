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

// pollableStdin returns standard input as a file served by Go's network
// poller when it is a pipe or a socket, and os.Stdin otherwise.
//
// Why: os.Stdin is a blocking descriptor, so a read occupies an OS thread
// in a system call, and a request handed to a worker goroutine must wait
// for another thread to be woken to run it. A poller-served read parks only
// the goroutine: the worker runs at once on the same thread, which roughly
// halves the latency of a stdio round trip. The descriptor is a duplicate,
// and O_NONBLOCK (a property of the shared pipe, not of the descriptor) is
// cleared again by the returned function. Terminals and files keep
// blocking reads: a terminal is shared with the shell, which must not find
// it non-blocking.
func pollableStdin() (*os.File, func()) {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return os.Stdin, func() {}
	}
	if mode := st.Mode & unix.S_IFMT; mode != unix.S_IFIFO && mode != unix.S_IFSOCK {
		return os.Stdin, func() {}
	}
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return os.Stdin, func() {}
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return os.Stdin, func() {}
	}
	f := os.NewFile(uintptr(fd), "protocol-stdin")
	return f, func() {
		_ = unix.SetNonblock(0, false)
		f.Close()
	}
}
