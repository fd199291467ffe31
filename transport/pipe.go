package transport

import (
	"io"
	"sync"
)

// Pipe returns two connected in-memory Streams, for tests and for embedding
// a server in the same process as its client. Messages are copied, so
// neither side can alter what the other received, and each side sees the
// same validation and id translation as over a real byte stream.
func Pipe(opts *StreamOptions) (*Stream, *Stream) {
	ab := make(chan []byte, 64)
	ba := make(chan []byte, 64)
	done := make(chan struct{})
	var once sync.Once
	closeAll := func() { once.Do(func() { close(done) }) }
	a := &chanFramer{in: ba, out: ab, done: done, close: closeAll}
	b := &chanFramer{in: ab, out: ba, done: done, close: closeAll}
	return NewStream(a, opts), NewStream(b, opts)
}

// chanFramer is one end of Pipe. Closing either end closes both, like a
// socket whose peer has gone.
type chanFramer struct {
	in, out chan []byte
	done    chan struct{}
	close   func()
}

func (f *chanFramer) ReadFrame() ([]byte, error) {
	// Drain what was sent before the close, as a byte stream would.
	select {
	case m := <-f.in:
		return m, nil
	default:
	}
	select {
	case m := <-f.in:
		return m, nil
	case <-f.done:
		select {
		case m := <-f.in:
			return m, nil
		default:
			return nil, io.EOF
		}
	}
}

func (f *chanFramer) WriteFrame(msg []byte) error {
	m := append([]byte(nil), msg...)
	select {
	case <-f.done:
		return io.ErrClosedPipe
	default:
	}
	select {
	case f.out <- m:
		return nil
	case <-f.done:
		return io.ErrClosedPipe
	}
}

func (f *chanFramer) Close() error {
	f.close()
	return nil
}
