//go:build linux

package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// A message far larger than a pipe's buffer goes through whole: the
// writer waits on the poller whenever the pipe is full, and the reader
// whenever it is empty.
func TestLargeTransfer(t *testing.T) {
	r, w := pipe(t)
	rr, ww := New(r), New(w)
	if rr == nil || ww == nil {
		t.Fatal("os.Pipe's files are served by the poller, yet New returned nil")
	}
	msg := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	done := make(chan error, 1)
	go func() {
		n, err := ww.Write(msg)
		if err == nil && n != len(msg) {
			err = io.ErrShortWrite
		}
		w.Close()
		done <- err
	}()
	got, err := io.ReadAll(rr)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes, want %d identical", len(got), len(msg))
	}
}

// Closing the file ends a read that waits on the poller.
func TestCloseUnblocksRead(t *testing.T) {
	r, w := pipe(t)
	rr := New(r)
	done := make(chan error, 1)
	go func() {
		_, err := rr.Read(make([]byte, 10))
		done <- err
	}()
	if _, err := w.Write(nil); err != nil { // the reader may or may not be waiting yet
		t.Fatal(err)
	}
	r.Close()
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read after close: %v, want os.ErrClosed", err)
	}
}

// Writing to a pipe whose reader is gone reports EPIPE, as os.File does.
func TestWriteBrokenPipe(t *testing.T) {
	r, w := pipe(t)
	ww := New(w)
	r.Close()
	if _, err := ww.Write([]byte("x")); err == nil {
		t.Fatal("write to a pipe without a reader succeeded")
	}
}

// A blocking descriptor is left to os.File: a raw read would spin on it.
func TestBlockingFileRefused(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if New(f) != nil {
		t.Fatal("New accepted a regular file")
	}
}
