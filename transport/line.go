package transport

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"net"
	"sync"
)

// headSize is how much of an oversized line is kept for id recovery.
const headSize = 4 << 10

// keepLineBuf is the largest line buffer kept across reads once a small
// message shows that large ones have stopped coming.
const keepLineBuf = 1 << 20

// LineFramer is a Framer for newline-delimited JSON: one message per line.
// Reading accepts LF and CRLF line ends and skips blank lines and the white
// space around a message; writing appends a single LF and issues one Write
// per message, so a message never interleaves with another writer's.
//
// The size limit applies to a line without its LF and without a CR just
// before it. A longer line is discarded as it is read, so the framer never
// holds more than about the limit in memory.
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
	return newLineFramerSize(rwc, maxSize, 64<<10)
}

// newLineFramerSize is NewLineFramer with a chosen read buffer size, so
// that tests can exercise lines that span several buffers.
func newLineFramerSize(rwc io.ReadWriteCloser, maxSize, bufSize int) *LineFramer {
	if maxSize <= 0 {
		maxSize = DefaultMaxMessageSize
	}
	return &LineFramer{rwc: rwc, r: bufio.NewReaderSize(rwc, bufSize), max: maxSize}
}

// ReadFrame implements Framer.
func (f *LineFramer) ReadFrame() ([]byte, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		if line = trimJSONSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// trimJSONSpace removes JSON white space (RFC 8259: space, tab, LF, CR)
// around b.
func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && isJSONSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isJSONSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tooLong reports whether a line of n bytes (without its LF) whose last byte
// is last exceeds the limit; a final CR does not count.
func (f *LineFramer) tooLong(n int64, last byte) bool {
	if n > 0 && last == '\r' {
		n--
	}
	return n > int64(f.max)
}

// readLine returns the next line without its terminator. A final line
// without a newline is returned too, before io.EOF.
func (f *LineFramer) readLine() ([]byte, error) {
	chunk, err := f.r.ReadSlice('\n')
	if err == nil {
		// The common case: the whole line is in the buffer; no copy.
		line := chunk[:len(chunk)-1]
		if f.tooLong(int64(len(line)), lastByte(line)) {
			return nil, f.skipRest(line, int64(len(line)), nil)
		}
		if cap(f.line) > keepLineBuf {
			f.line = nil // do not pin a huge buffer after the huge messages stop
		}
		return line, nil
	}
	f.line = f.line[:0]
	var size int64
	for {
		part := chunk
		if err == nil {
			part = chunk[:len(chunk)-1]
		}
		size += int64(len(part))
		// While the line goes on, one byte more than the limit may still be
		// a CR before the LF; at its end the exact rule applies.
		if size > int64(f.max)+1 || (!errors.Is(err, bufio.ErrBufferFull) && f.tooLong(size, lastByte2(f.line, part))) {
			head := append(make([]byte, 0, headSize), f.line[:min(len(f.line), headSize)]...)
			head = append(head, part[:min(len(part), headSize-len(head))]...)
			f.line = f.line[:0]
			return nil, f.skipRest(head, size, err)
		}
		f.line = append(f.line, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		chunk, err = f.r.ReadSlice('\n')
	}
	switch {
	case err == nil:
		return f.line, nil
	case errors.Is(err, io.EOF) && len(f.line) > 0:
		return f.line, nil
	default:
		return nil, f.readErr(err)
	}
}

func lastByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}

// lastByte2 is the last byte of a+b.
func lastByte2(a, b []byte) byte {
	if len(b) > 0 {
		return b[len(b)-1]
	}
	return lastByte(a)
}

// skipRest discards an oversized line up to its newline and reports it.
// head holds the line's first bytes read so far (it is copied when it
// aliases the read buffer) and size its length so far; err is the error of
// the last read, bufio.ErrBufferFull while the line goes on.
func (f *LineFramer) skipRest(head []byte, size int64, err error) error {
	head = append(make([]byte, 0, min(headSize, max(len(head), 64))), head[:min(len(head), headSize)]...)
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = f.r.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += int64(len(chunk))
		if len(head) < headSize {
			head = append(head, chunk[:min(len(chunk), headSize-len(head))]...)
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return f.readErr(err)
	}
	return &TooLargeError{Size: size, Limit: f.max, Head: head}
}

// readErr reports the end of input as io.EOF, whether the peer finished or
// the medium was closed under a pending read.
func (f *LineFramer) readErr(err error) error {
	if errors.Is(err, io.ErrClosedPipe) || errors.Is(err, errClosedFramer) || errors.Is(err, fs.ErrClosed) || errors.Is(err, net.ErrClosed) {
		return io.EOF
	}
	return err
}

// WriteFrame implements Framer.
func (f *LineFramer) WriteFrame(msg []byte) error {
	f.wbuf = append(append(f.wbuf[:0], msg...), '\n')
	_, err := f.rwc.Write(f.wbuf)
	if cap(f.wbuf) > keepLineBuf {
		f.wbuf = nil
	}
	return err
}

// Close implements Framer; it closes the underlying ReadWriteCloser once.
func (f *LineFramer) Close() error {
	f.closeOnce.Do(func() { f.closeErr = f.rwc.Close() })
	return f.closeErr
}
