//go:build linux

package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// A server that stops reading its stdin: a call with a deadline still
// returns at its deadline (telling the server it gave up must not hold the
// caller), and a message the server never takes fails the connection after
// the write timeout, which stops the server.
func TestProcessServerThatStopsReading(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "deaf"), &client.ProcessOptions{WriteTimeout: 500 * time.Millisecond})
	c, err := p.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	_, err = c.CallTool(context.Background(), "anything", nil, client.WithTimeout(200*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrClosed) {
		t.Errorf("got %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the call returned after %v; its deadline was 200ms", d)
	}

	// More than a pipe holds: this write cannot finish.
	big := map[string]string{"text": strings.Repeat("x", 1<<20)}
	start = time.Now()
	_, err = c.CallTool(context.Background(), "echo", big)
	if !errors.Is(err, transport.ErrWriteTimeout) || !errors.Is(err, client.ErrClosed) {
		t.Errorf("got %v, want ErrWriteTimeout and ErrClosed", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the stuck call returned after %v; the write timeout was 500ms", d)
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server was not stopped")
	}
}
