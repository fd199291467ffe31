//go:build linux

package client_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// The same of a Process: once Close returns, nothing more reaches
// ProcessOptions.Logger from the client of its server, whose connection
// it closes, and what reached it before is written before Close returns.
// Before, a Process closed that client's connection but not its log, and
// mcpc's stderr buffer, read once run returned, raced with the client's
// listen loop in a CI run (examples/mcpc's TestConfigServerAndVerbose
// raced about once in 60 runs under -race before the fix, none in 120
// after). Here the log's buffer is read with no lock once Close returns:
// under -race, a record written without Close waiting for it is a race;
// and afterClose counts records logged after it. This test did not fail
// on the old code here; the mcpc test is the one that reproduces.
func TestProcessNoLogAfterClose(t *testing.T) {
	noLeaks(t)
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		h := &afterClose{returned: make(chan struct{})}
		var buf lockedBuffer
		log := slog.New(teeHandler{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), h})
		p, err := client.Launch(ctx, helperCommand(t, "server"), &client.ProcessOptions{Logger: log,
			Client: &client.Options{OnToolsChanged: func() {}}})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		h.closing.Store(true)
		p.Close()
		_ = buf.b.Len() // no lock: Close returned, so no one writes
		close(h.returned)
		cancel()
		if n := h.late.Load(); n > 0 {
			t.Fatalf("%d records reached the logger after Close returned, the last %q", n, h.last.Load())
		}
	}
}

// lockedBuffer is a buffer its writers share, as mcpc's stderr is. Unlike
// logrec.Buffer, the test reads it without the lock, so that -race sees a
// write that Close did not wait for.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// teeHandler hands each record to two handlers.
type teeHandler [2]slog.Handler

func (t teeHandler) Enabled(context.Context, slog.Level) bool { return true }
func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	_ = t[0].Handle(ctx, r)
	return t[1].Handle(ctx, r)
}
func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{t[0].WithAttrs(as), t[1].WithAttrs(as)}
}
func (t teeHandler) WithGroup(n string) slog.Handler {
	return teeHandler{t[0].WithGroup(n), t[1].WithGroup(n)}
}
