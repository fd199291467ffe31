//go:build linux

package rawio

import (
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawIO is a poller-served descriptor read and written with raw system
// calls. (os.File's methods go through syscall.Syscall, whose notice to the
// scheduler cost about 8% of a small call's CPU on a server.)
type rawIO struct {
	f  *os.File
	rc syscall.RawConn
}

// New returns f wrapped as rawIO, or nil when f is not served by the
// poller (a blocking descriptor, whose reads must not spin).
func New(f *os.File) io.ReadWriter {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if rc.Control(func(fd uintptr) { nonblocking = isNonblocking(int(fd)) }) != nil || !nonblocking {
		return nil
	}
	return &rawIO{f: f, rc: rc}
}

func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			r1, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait for the poller
			}
			n, errno = int(r1), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, r.wrap("read", err)
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (r *rawIO) Write(p []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	stuck := false // the kernel took nothing, which os.File reports too
	err := r.rc.Write(func(fd uintptr) bool {
		for written < len(p) {
			r1, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[written])), uintptr(len(p)-written))
			switch e {
			case 0:
				if r1 == 0 {
					stuck = true
					return true
				}
				written += int(r1)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the pipe is full: wait for the poller
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err != nil {
		return written, r.wrap("write", err)
	}
	if errno != 0 {
		return written, &os.PathError{Op: "write", Path: r.f.Name(), Err: errno}
	}
	if stuck {
		return written, io.ErrUnexpectedEOF
	}
	return written, nil
}

// wrap reports an error of the poller the way os.File does. Without
// deadlines, the poller fails only because the file was closed, which
// os.File reports as os.ErrClosed.
func (r *rawIO) wrap(op string, err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		err = os.ErrClosed
	}
	return &os.PathError{Op: op, Path: r.f.Name(), Err: err}
}

func isNonblocking(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && flags&unix.O_NONBLOCK != 0
}
