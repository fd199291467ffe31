package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// headSize is how much of an oversized line is kept for id recovery.
const headSize = 4 << 10

// LineFramer is a Framer for newline-delimited JSON: one message per line.
// Reading accepts LF and CRLF line ends and skips blank lines and the white
// space around a message; writing appends a single LF and issues one Write
// per message, so a message never interleaves with another writer's.
type LineFramer struct {
	rwc io.ReadWriteCloser
	r   *bufio.Reader
	max int

	line []byte // reused across reads for messages longer than the bufio buffer
	wbuf []byte // reused across writes

	closeOnce sync.Once
	closeErr  error
}

// NewLineFramer returns a LineFramer over rwc that rejects messages longer
// than maxSize bytes (DefaultMaxMessageSize when maxSize <= 0).
func NewLineFramer(rwc io.ReadWriteCloser, maxSize int) *LineFramer {
	if maxSize <= 0 {
		maxSize = DefaultMaxMessageSize
	}
	return &LineFramer{rwc: rwc, r: bufio.NewReaderSize(rwc, 64<<10), max: maxSize}
}

// ReadFrame implements Framer.
func (f *LineFramer) ReadFrame() ([]byte, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// readLine returns the next line without its terminator. A final line
// without a newline is returned too, before io.EOF.
func (f *LineFramer) readLine() ([]byte, error) {
	chunk, err := f.r.ReadSlice('\n')
	if err == nil {
		return chunk[:len(chunk)-1], nil // the common case: no copy
	}
	f.line = append(f.line[:0], chunk...)
	var size int64 = int64(len(chunk))
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = f.r.ReadSlice('\n')
		size += int64(len(chunk))
		if size > int64(f.max)+1 { // +1: the newline does not count
			return nil, f.skipRest(size, err)
		}
		f.line = append(f.line, chunk...)
	}
	if cap(f.line) > 4*f.r.Size() && size < int64(f.r.Size()) {
		f.line = nil // do not pin a huge buffer after one huge message
	}
	switch {
	case err == nil:
		return f.line[:len(f.line)-1], nil
	case errors.Is(err, io.EOF) && len(f.line) > 0:
		return f.line, nil
	default:
		return nil, f.readErr(err)
	}
}

// skipRest discards an oversized line up to its newline and reports it.
func (f *LineFramer) skipRest(size int64, err error) error {
	head := append([]byte(nil), f.line[:min(len(f.line), headSize)]...)
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = f.r.ReadSlice('\n')
		size += int64(len(chunk))
	}
	f.line = f.line[:0]
	if err != nil && !errors.Is(err, io.EOF) {
		return f.readErr(err)
	}
	return &TooLargeError{Size: size, Limit: f.max, Head: head}
}

func (f *LineFramer) readErr(err error) error {
	if errors.Is(err, io.ErrClosedPipe) || errors.Is(err, errClosedFramer) {
		return io.EOF
	}
	return err
}

// WriteFrame implements Framer.
func (f *LineFramer) WriteFrame(msg []byte) error {
	f.wbuf = append(append(f.wbuf[:0], msg...), '\n')
	_, err := f.rwc.Write(f.wbuf)
	if cap(f.wbuf) > 1<<20 {
		f.wbuf = nil
	}
	return err
}

// Close implements Framer; it closes the underlying ReadWriteCloser once.
func (f *LineFramer) Close() error {
	f.closeOnce.Do(func() { f.closeErr = f.rwc.Close() })
	return f.closeErr
}
