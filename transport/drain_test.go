package transport

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// halfClosed feeds a fixed input and then ends it, like a client that
// writes its requests and closes its side of a pipe.
type halfClosed struct {
	io.Reader
	w io.Writer
}

func (h halfClosed) Write(p []byte) (int, error) { return h.w.Write(p) }
func (h halfClosed) Close() error                { return nil }

func TestRequestsReadBeforeEOFAreAnswered(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"slow"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"slow"}` + "\n")
	pr, pw := io.Pipe()
	release := make(chan struct{})
	c := NewConn(NewStream(NewLineFramer(halfClosed{in, pw}, 0), nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		go func() {
			<-release // answered only after the input has ended
			c.Reply(ctx, r, map[string]string{"ok": r.ID.String()})
		}()
	}), nil)
	defer c.Close()
	out := bufio.NewReader(pr)
	close(release)
	got := map[string]bool{}
	for range 2 {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		got[strings.TrimSpace(line)] = true
	}
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":{"ok":"1"}}`, `{"jsonrpc":"2.0","id":2,"result":{"ok":"2"}}`} {
		if !got[want] {
			t.Errorf("missing %s in %v", want, got)
		}
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection did not close after draining")
	}
}

func TestDrainIsBounded(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"never"}` + "\n")
	c := NewConn(NewStream(NewLineFramer(halfClosed{in, io.Discard}, 0), &StreamOptions{DrainTimeout: 50 * time.Millisecond}),
		HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {}), nil)
	defer c.Close()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a request never answered kept the connection open past the drain timeout")
	}
}
