package client

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/transport"
)

// countingHandler counts the records logged at Warn and above.
type countingHandler struct{ n *atomic.Int64 }

func (h countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.n.Add(1)
	}
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

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
	var warned atomic.Int64
	f := &childFramer{
		lf:  transport.NewLineFramer(stdoutPipe{strings.NewReader(in)}, 0),
		ch:  &child{name: "junk"},
		log: slog.New(countingHandler{&warned}),
	}
	b, err := f.ReadFrame()
	if err != nil || !bytes.HasPrefix(b, []byte(`{"jsonrpc"`)) {
		t.Fatalf("ReadFrame: %q, %v", b, err)
	}
	if got := f.dropped.Load(); got != lines {
		t.Errorf("dropped %d lines, want %d", got, lines)
	}
	// 1, 2, 4, ..., 65536: 17 warnings.
	if n := warned.Load(); n < 1 || n > 17 {
		t.Errorf("%d warnings for %d junk lines", n, lines)
	}
}
