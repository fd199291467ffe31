package client_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// afterClose is a slog handler that holds each record it gets once
// closing is set until Close has returned (returned closed), or at most
// holdLimit, and counts those it still writes after that: with a Close
// that does not wait for a record being written, every record logged
// around it is late.
type afterClose struct {
	closing  atomic.Bool
	returned chan struct{}
	late     atomic.Int32
	last     atomic.Value // the message of the last late record
}

// holdLimit bounds how long a record is held. A Close that waits for the
// record holds off returned: the record is written (not late) once the
// limit passes, and Close returns.
const holdLimit = 200 * time.Millisecond

func (h *afterClose) Enabled(context.Context, slog.Level) bool { return true }
func (h *afterClose) Handle(_ context.Context, r slog.Record) error {
	if !h.closing.Load() {
		return nil
	}
	t := time.NewTimer(holdLimit)
	defer t.Stop()
	select {
	case <-h.returned:
		h.late.Add(1)
		h.last.Store(r.Message)
	case <-t.C:
	}
	return nil
}
func (h *afterClose) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *afterClose) WithGroup(string) slog.Handler      { return h }

// Once Close returns, nothing more reaches Options.Logger: the listen
// loop and the connection's read loop learn of the close a moment after
// it, and a record they logged then would reach a handler the caller had
// let go of (an mcpc test saw its stderr buffer, read once run returned,
// race with the client's listen loop once). Here the server goes away
// while the loop awaits an acknowledgement and the client is closed;
// every record logged from then on is held until Close returns, so one
// that Close did not wait for is counted.
func TestNoLogAfterClose(t *testing.T) {
	noLeaks(t)
	client.SetFirstListenWait(t, time.Millisecond)
	for i := range 30 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		// The first listen is never acknowledged: the loop waits for it
		// when Close comes.
		f := &fakeListener{ackAfter: make(chan struct{})}
		a, b := transport.Pipe(nil)
		srvConn := transport.NewConn(a, f, nil)
		h := &afterClose{returned: make(chan struct{})}
		opts := newHeard().options(&client.Options{Logger: slog.New(h)})
		c, err := client.Connect(ctx, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		// The server goes first, as a child that exits does: the loop
		// learns that its listen failed while the client is being closed.
		h.closing.Store(true)
		srvConn.Close()
		c.Close()
		close(h.returned)
		<-c.Done()
		close(f.ackAfter)
		cancel()
		if n := h.late.Load(); n > 0 {
			t.Fatalf("run %d: %d records after Close returned, the last %q", i, n, h.last.Load())
		}
	}
}

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

// lockedBuffer is a buffer its writers share, as mcpc's stderr is.
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
