package client

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

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

// The stderr log budget lets a burst through, then refills at its rate:
// a server quiet for a while is logged again, and the record reporting
// the lines skipped meanwhile is paid for with the line after them.
func TestLogBudgetRefills(t *testing.T) {
	var b logBudget
	t0 := time.Unix(1e9, 0)
	line := 1024 - stderrRecordCost // a kilobyte a record
	n := 0
	for b.take(line, t0) {
		n++
	}
	if n != stderrLogBurst/1024 || b.skipped != 1 {
		t.Fatalf("burst of %d records, %d skipped; want %d, 1", n, b.skipped, stderrLogBurst/1024)
	}
	if b.take(line, t0.Add(time.Second/stderrLogRate*1024)) {
		t.Fatal("a line and the report of those skipped taken for one record's refill")
	}
	if !b.take(line, t0.Add(time.Second/stderrLogRate*3*1024)) || b.skipped != 2 {
		t.Fatalf("not logged again after the refill (%d skipped)", b.skipped)
	}
	b.skipped = 0 // logSkipped's part
	if !b.take(line, t0.Add(time.Hour)) || b.tokens > stderrLogBurst {
		t.Fatalf("after an hour: %v tokens, more than the burst", b.tokens)
	}
}
