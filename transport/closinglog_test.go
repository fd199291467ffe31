package transport

import (
	"log/slog"
	"testing"

	"github.com/winbridge/winbridge/internal/logrec"
)

// lateFramer hands its one frame over only once it is closed: the read
// loop that had read a frame when the stream closed.
type lateFramer struct {
	frame  []byte
	closed chan struct{}
}

func (f *lateFramer) ReadFrame() ([]byte, error) {
	<-f.closed
	fr := f.frame
	f.frame = nil
	if fr == nil {
		return nil, ErrClosed
	}
	return fr, nil
}
func (f *lateFramer) WriteFrame([]byte) error { return ErrClosed }
func (f *lateFramer) Close() error            { close(f.closed); return nil }

// TestStreamSilentAfterClose: a message rejected after Close (the read
// loop's last read) logged into a handler its owner had let go of; mcpc's
// test read its buffer while that line was written (a race under -race).
func TestStreamSilentAfterClose(t *testing.T) {
	sink := &logrec.Sink{}
	f := &lateFramer{frame: []byte(`{"jsonrpc":"2.0","id":1}`), closed: make(chan struct{})}
	s := NewStream(f, &StreamOptions{Logger: slog.New(sink)})
	// Before the close, a line goes through.
	s.log.Debug("before")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := s.ReadObject(&v); err == nil {
		t.Fatalf("read %v from a closed stream", v)
	}
	recs := sink.All()
	if len(recs) != 1 || recs[0]["msg"] != "before" {
		t.Fatalf("records %v, want only the one before the close", recs)
	}
}
