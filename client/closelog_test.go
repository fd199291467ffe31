package client_test

import (
	"context"
	"log/slog"
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
	last     atomic.Value  // the message of the last late record
	done     chan struct{} // if set, told of each record held, once written
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
	if h.done != nil {
		defer func() { h.done <- struct{}{} }()
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
