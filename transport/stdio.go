package transport

import (
	"io"
	"os"
	"sync"
)

// Stdio returns a newline-delimited JSON Stream on the process's standard
// input and output, for a server launched as a child process.
//
// Standard output belongs to the protocol alone, so Stdio moves it out of
// reach: the stream writes to a private duplicate of descriptor 1, and
// descriptor 1 (and os.Stdout) are pointed at standard error until the
// stream is closed. A stray fmt.Println in user code, or a library that
// prints, then lands on stderr instead of corrupting the stream. The stream
// ends cleanly when standard input reaches end of file.
//
// On Unix, when standard input is a pipe or a socket (as it is for a
// launched server), the stream reads it through Go's poller, which puts the
// pipe in non-blocking mode until the stream is closed; a child process that
// inherits descriptor 0 meanwhile sees it non-blocking. Nothing but the
// stream should read the protocol's input anyway.
func Stdio(opts *StreamOptions) (*Stream, error) {
	out, restore, err := divertStdout()
	if err != nil {
		return nil, err
	}
	in, release := pollableStdin()
	rwc := &stdioRWC{r: in, w: out, out: out, restore: func() { release(); restore() }}
	return NewStream(NewLineFramer(rwc, 0), opts), nil
}

type stdioRWC struct {
	r       io.Reader
	w       io.Writer
	out     *os.File
	restore func()
	once    sync.Once
}

func (s *stdioRWC) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s *stdioRWC) Write(p []byte) (int, error) { return s.w.Write(p) }

// Close restores descriptor 1 and closes the private copies. Standard input
// itself is left open: closing a terminal or file descriptor does not
// unblock a read on every platform, and the process owns it, not the
// stream.
func (s *stdioRWC) Close() error {
	var err error
	s.once.Do(func() {
		s.restore()
		err = s.out.Close()
	})
	return err
}

var _ io.ReadWriteCloser = (*stdioRWC)(nil)
