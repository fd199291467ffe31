package client

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/transport"
)

// stdoutPipe is a child's stdout as the framer reads it.
type stdoutPipe struct{ io.Reader }

func (stdoutPipe) Write(p []byte) (int, error) { return len(p), nil }
func (stdoutPipe) Close() error                { return nil }

// A server that writes line after line of junk to its stdout (two bytes
// a line) made the client log a warning for every one: a hundred times
// the bytes in the user's log, and a log without end. The warnings now
// come for the 1st, 2nd, 4th, 8th... line dropped, with the count.
func TestJunkOnStdoutDoesNotFloodTheLog(t *testing.T) {
	const lines = 100000
	in := strings.Repeat("x\n", lines) + `{"jsonrpc":"2.0","method":"ping"}` + "\n"
	warned := &logrec.Counter{Min: slog.LevelWarn}
	f := &childFramer{
		lf:  transport.NewLineFramer(stdoutPipe{strings.NewReader(in)}, 0),
		ch:  &child{name: "junk"},
		log: slog.New(warned),
	}
	b, err := f.ReadFrame()
	if err != nil || !bytes.HasPrefix(b, []byte(`{"jsonrpc"`)) {
		t.Fatalf("ReadFrame: %q, %v", b, err)
	}
	if got := f.dropped.Load(); got != lines {
		t.Errorf("dropped %d lines, want %d", got, lines)
	}
	// 1, 2, 4, ..., 65536: 17 warnings.
	if n := warned.Count(); n < 1 || n > 17 {
		t.Errorf("%d warnings for %d junk lines", n, lines)
	}
}
