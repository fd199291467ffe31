package transport

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// deafPeer is the far end of a net.Pipe that reads the given number of
// lines and then one byte, and never reads again, like a server that
// stopped reading its stdin. The returned channel is closed once it has
// stopped: the write it took a byte of is then stuck half done, and every
// write after it blocks.
func deafPeer(t *testing.T, lines int) (net.Conn, <-chan struct{}) {
	t.Helper()
	c1, c2 := net.Pipe()
	read := make(chan struct{})
	stalled := make(chan struct{})
	go func() {
		defer close(read)
		r := bufio.NewReaderSize(c2, 16) // reads little ahead of the lines
		for range lines {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
		}
		if _, err := r.ReadByte(); err != nil {
			return
		}
		close(stalled)
	}()
	t.Cleanup(func() {
		c2.Close()
		<-read
	})
	return c1, stalled
}

// A write the peer does not take within the write timeout fails the whole
// connection, with an error that names the setting.
func TestWriteTimeoutFailsConn(t *testing.T) {
	checkLeaks(t)
	peer, _ := deafPeer(t, 0)
	s := NewStream(NewLineFramer(peer, 0), &StreamOptions{Logger: quiet, WriteTimeout: 50 * time.Millisecond})
	c := NewConn(s, nil, &ConnOptions{Logger: quiet})
	defer c.Close()
	errs := make(chan error, 2)
	for _, m := range []string{"first", "second"} { // one writes, one waits for the gate
		go func() { errs <- c.Call(context.Background(), m, nil, nil) }()
	}
	for range 2 {
		var err error
		select {
		case err = <-errs:
		case <-time.After(waitLimit):
			t.Fatal("a call whose request the peer never reads did not end")
		}
		if !errors.Is(err, ErrWriteTimeout) || !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "StreamOptions.WriteTimeout") {
			t.Errorf("got %v, want ErrWriteTimeout and ErrClosed, naming StreamOptions.WriteTimeout", err)
		}
	}
	select {
	case <-c.Done():
	case <-time.After(waitLimit):
		t.Fatal("the connection stayed open")
	}
	if err := c.Notify(context.Background(), "later", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("a later notification: %v, want ErrClosed", err)
	}
}

// Writes that finish in time never trip the watchdog, however many there
// are: it judges the write in progress, not a timer set for an earlier one.
func TestWriteTimeoutQuietWhenWritesFlow(t *testing.T) {
	checkLeaks(t)
	for _, k := range pairKinds[1:] { // net.Pipe: every write waits for the reader
		a, b := k.new()
		a.wd.timeout, b.wd.timeout = 250*time.Millisecond, 250*time.Millisecond
		ca := NewConn(a, asyncEcho, &ConnOptions{Logger: quiet})
		cb := NewConn(b, asyncEcho, &ConnOptions{Logger: quiet})
		for end := time.Now().Add(600 * time.Millisecond); time.Now().Before(end); {
			if err := ca.Call(context.Background(), "echo", map[string]int{"a": 1}, nil); err != nil {
				t.Fatal(err)
			}
		}
		ca.Close()
		cb.Close()
	}
}

// A caller whose deadline passes while another sender's write is stuck
// returns at its deadline, with its deadline error: it waits for the
// write on the connection's gate, which honours the context. (The sender
// whose own message is half written waits for it, up to the write
// timeout: half a message cannot be taken back.)
func TestCallDeadlineBehindStuckWrite(t *testing.T) {
	checkLeaks(t)
	peer, stalled := deafPeer(t, 0)
	s := NewStream(NewLineFramer(peer, 0), &StreamOptions{Logger: quiet, WriteTimeout: -1})
	c := NewConn(s, nil, &ConnOptions{Logger: quiet})
	defer c.Close()
	stuck := make(chan error, 1)
	go func() { stuck <- c.Call(context.Background(), "stuck", nil, nil) }()
	<-stalled // the stuck call is half written, holding the gate
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Call(ctx, "bounded", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the call returned after %v, its deadline was 200ms", d)
	}
	c.Close()
	if err := <-stuck; !errors.Is(err, ErrClosed) {
		t.Errorf("the stuck call: %v, want ErrClosed", err)
	}
}

// The notice that a call was given up is a write too: a peer that took the
// request and then stopped reading must not hold the caller past its
// deadline.
func TestAbandonDoesNotBlockCaller(t *testing.T) {
	checkLeaks(t)
	peer, _ := deafPeer(t, 1)
	s := NewStream(NewLineFramer(peer, 0), &StreamOptions{Logger: quiet, WriteTimeout: time.Minute})
	noticed := make(chan error, 1)
	c := NewConn(s, nil, &ConnOptions{Logger: quiet, Abandoned: func(c *Conn, id ID, method string, cause error) {
		// As mcp.NotifyCancelled does; the write blocks for good.
		noticed <- c.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id})
	}})
	defer func() {
		c.Close()
		if err := <-noticed; !errors.Is(err, ErrClosed) {
			t.Errorf("the cancellation notice: %v, want ErrClosed once the connection closed", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	var err error
	within(t, "a call whose cancellation notice cannot be written", func() {
		err = c.Call(ctx, "slow", nil, nil)
	})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the call returned after %v, its deadline was 200ms", d)
	}
}
