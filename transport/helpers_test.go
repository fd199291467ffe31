package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// quiet is the logger tests hand to streams and connections: what they log
// is asserted through behaviour, not read.
var quiet = slog.New(slog.DiscardHandler)

// waitLimit bounds every wait in these tests; reaching it is a failure, not
// a way to synchronize.
const waitLimit = 10 * time.Second

var goroutineHeader = regexp.MustCompile(`(?m)^goroutine (\d+) \[`)

// goroutineStacks returns the stacks of all goroutines by id.
func goroutineStacks() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if m := goroutineHeader.FindStringSubmatch(g); m != nil {
			out[m[1]] = g
		}
	}
	return out
}

// countFDs returns the number of open descriptors, or -1 where
// /proc/self/fd does not exist.
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents) - 1 // the descriptor ReadDir itself had open
}

// checkLeaks fails the test if, once its cleanups have run, goroutines that
// it started are still alive or descriptors it opened are still open. It
// must be called first in a test, so that its cleanup runs last. It polls
// with a deadline: goroutines unwind asynchronously after a Close.
func checkLeaks(t testing.TB) {
	t.Helper()
	before := goroutineStacks()
	fds := countFDs()
	t.Cleanup(func() {
		deadline := time.Now().Add(waitLimit)
		for {
			var leaked []string
			for id, stack := range goroutineStacks() {
				if _, ok := before[id]; !ok {
					leaked = append(leaked, stack)
				}
			}
			nfds := countFDs()
			if len(leaked) == 0 && nfds <= fds {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("leaked %d goroutines (descriptors: %d before, %d after):\n%s", len(leaked), fds, nfds, strings.Join(leaked, "\n\n"))
				return
			}
			time.Sleep(2 * time.Millisecond) // polling under a deadline
		}
	})
}

// within runs f and fails the test if it does not return in time.
func within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatalf("%s: no result after %v", what, waitLimit)
	}
}

// rawPeer is the far end of a net.Pipe on which a server Conn runs: tests
// write bytes to it and read the server's replies line by line.
type rawPeer struct {
	t     testing.TB
	c     net.Conn
	lines chan string
	s     *Stream
	srv   *Conn
}

// newRawPeer starts a server Conn with handler h on a LineFramer with the
// given limit (0: the default) and returns the raw peer facing it.
func newRawPeer(t testing.TB, maxSize int, h Handler) *rawPeer {
	t.Helper()
	c1, c2 := net.Pipe()
	p := &rawPeer{t: t, c: c1, lines: make(chan string, 1024)}
	p.s = NewStream(NewLineFramer(c2, maxSize), &StreamOptions{Logger: quiet})
	p.srv = NewConn(p.s, h, &ConnOptions{Logger: quiet})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.lines)
		r := bufio.NewReaderSize(c1, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if line != "" {
					p.lines <- "UNTERMINATED:" + line
				}
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		p.srv.Close()
		c1.Close()
		<-done
	})
	return p
}

// send writes raw bytes to the server.
func (p *rawPeer) send(b string) {
	p.t.Helper()
	if _, err := io.WriteString(p.c, b); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
}

// next returns the server's next line.
func (p *rawPeer) next() string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed the connection")
		}
		return line
	case <-time.After(waitLimit):
		p.t.Fatal("no reply from the server")
	}
	return ""
}

// expect asserts the server's next line.
func (p *rawPeer) expect(want string) {
	p.t.Helper()
	if got := p.next(); got != want {
		p.t.Fatalf("reply:\n got %s\nwant %s", got, want)
	}
}

// ping proves that the server still serves: a fresh request gets its
// normal reply, and it is the next line (so nothing else was sent before).
func (p *rawPeer) ping(id string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
	p.expect(`{"jsonrpc":"2.0","id":` + id + `,"result":{"ok":true}}`)
}

// testHandler answers "ping" with {"ok":true} and "echo" with its params,
// hands "hold" requests to the test, and records notifications.
type testHandler struct {
	held  chan *Request
	notes chan *Request
}

func newTestHandler() *testHandler {
	return &testHandler{held: make(chan *Request, 64), notes: make(chan *Request, 64)}
}

func (h *testHandler) Handle(ctx context.Context, c *Conn, r *Request) {
	if r.IsNotification() {
		h.notes <- r
		return
	}
	switch r.Method {
	case "ping":
		_ = c.Reply(ctx, r, json.RawMessage(`{"ok":true}`))
	case "echo":
		_ = c.Reply(ctx, r, r.Params)
	case "hold":
		h.held <- r
	default:
		_ = c.ReplyError(ctx, r, &Error{Code: CodeMethodNotFound, Message: "method not found: " + r.Method})
	}
}

// streamState returns the sizes of a stream's bookkeeping maps.
func streamState(s *Stream) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]int{
		"inbound":  len(s.inbound),
		"inflight": len(s.inflight),
		"outgoing": len(s.outgoing),
		"payloads": len(s.payloads),
		"results":  len(s.results),
		"injected": len(s.injected),
	}
}

// pendingCalls returns the size of jsonrpc2's map of calls awaiting a
// response. It reads an unexported field: callers make sure, through a
// completed call, that the read loop has handed over what it wrote.
func pendingCalls(c *Conn) int {
	return reflect.ValueOf(c.rpc).Elem().FieldByName("pending").Len()
}

// assertClean fails unless the stream holds no state for any message.
func assertClean(t testing.TB, s *Stream) {
	t.Helper()
	for k, n := range streamState(s) {
		if n != 0 {
			t.Errorf("stream %s holds %d entries, want 0", k, n)
		}
	}
}

// genReader produces n bytes of one repeated byte and then a tail, without
// holding them in memory.
type genReader struct {
	n    int64
	fill byte
	tail *bytes.Reader
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.n > 0 {
		k := min(int64(len(p)), g.n)
		for i := range p[:k] {
			p[i] = g.fill
		}
		g.n -= k
		return int(k), nil
	}
	return g.tail.Read(p)
}

// readOnly adapts a Reader to the ReadWriteCloser a LineFramer takes.
type readOnly struct{ io.Reader }

func (readOnly) Write(p []byte) (int, error) { return len(p), nil }
func (readOnly) Close() error                { return nil }
