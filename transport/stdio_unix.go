//go:build unix

package transport

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// divertStdout duplicates descriptor 1 for the protocol and points
// descriptor 1 at standard error. The duplicate is served by the poller
// when it is a pipe or a socket (see pollable).
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
	// When stdout and stderr are one pipe (2>&1), non-blocking mode would
	// reach stderr too, whose writers do not expect EAGAIN.
	polled := !samePipe(fd, 2) && setPollable(fd)
	restore := func() {
		if saved >= 0 {
			if polled {
				_ = unix.SetNonblock(saved, false)
			}
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
// the goroutine, and the worker runs at once on the same thread. The
// descriptor is a duplicate; the returned function closes it and clears
// O_NONBLOCK again, which belongs to the pipe shared with descriptor 0.
func pollableStdin() (*os.File, func()) {
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return os.Stdin, func() {}
	}
	if !setPollable(fd) {
		unix.Close(fd)
		return os.Stdin, func() {}
	}
	f := os.NewFile(uintptr(fd), "protocol-stdin")
	return f, func() {
		_ = unix.SetNonblock(0, false)
		f.Close()
	}
}

// setPollable puts fd in non-blocking mode, so that os.NewFile hands it to
// the poller, when it is a pipe or a socket. Terminals and files are left
// alone: a terminal is shared with the shell, which must not find it
// non-blocking, and a regular file is never waited for.
func setPollable(fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	if mode := st.Mode & unix.S_IFMT; mode != unix.S_IFIFO && mode != unix.S_IFSOCK {
		return false
	}
	return unix.SetNonblock(fd, true) == nil
}

// samePipe reports whether descriptors a and b are the same pipe or socket.
func samePipe(a, b int) bool {
	var sa, sb unix.Stat_t
	if unix.Fstat(a, &sa) != nil || unix.Fstat(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
