package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pair is two connected Conns.
type pair struct {
	cli, srv   *Conn
	cs, ss     *Stream
	cliH, srvH *testHandler
}

type pairKind struct {
	name string
	new  func() (*Stream, *Stream)
}

var pairKinds = []pairKind{
	{"Pipe", func() (*Stream, *Stream) { return Pipe(&StreamOptions{Logger: quiet}) }},
	{"net.Pipe", func() (*Stream, *Stream) {
		c1, c2 := net.Pipe()
		return NewStream(NewLineFramer(c1, 0), &StreamOptions{Logger: quiet}), NewStream(NewLineFramer(c2, 0), &StreamOptions{Logger: quiet})
	}},
}

// newPair connects a client and a server whose handlers are testHandlers
// (replies made on the read loop), with opts for the client.
func newPair(t testing.TB, k pairKind, opts *ConnOptions) *pair {
	t.Helper()
	p := &pair{cliH: newTestHandler(), srvH: newTestHandler()}
	p.cs, p.ss = k.new()
	if opts == nil {
		opts = &ConnOptions{}
	}
	opts.Logger = quiet
	p.srv = NewConn(p.ss, p.srvH, &ConnOptions{Logger: quiet})
	p.cli = NewConn(p.cs, p.cliH, opts)
	t.Cleanup(func() {
		p.cli.Close()
		p.srv.Close()
	})
	return p
}

// asyncEcho answers every request from another goroutine with its params.
var asyncEcho = HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
	if !r.IsNotification() {
		go func() { _ = c.Reply(ctx, r, r.Params) }()
	}
})

// 64 goroutines on each side call the other side at once.
func TestConnConcurrent(t *testing.T) {
	const goroutines, calls = 64, 50
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			a, b := k.new()
			ca := NewConn(a, asyncEcho, &ConnOptions{Logger: quiet})
			defer ca.Close()
			cb := NewConn(b, asyncEcho, &ConnOptions{Logger: quiet})
			defer cb.Close()
			var wg sync.WaitGroup
			var failures atomic.Int64
			for g := range goroutines {
				for _, c := range []*Conn{ca, cb} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range calls {
							in := map[string]any{"g": g, "i": i, "s": strings.Repeat("é", i)}
							var out map[string]any
							if err := c.Call(context.Background(), "echo", in, &out); err != nil {
								t.Errorf("call: %v", err)
								failures.Add(1)
								return
							}
							if fmt.Sprint(out) != fmt.Sprint(map[string]any{"g": float64(g), "i": float64(i), "s": in["s"]}) {
								t.Errorf("got %v for %v", out, in)
								failures.Add(1)
								return
							}
						}
					}()
				}
			}
			within(t, "concurrent calls", wg.Wait)
			if failures.Load() == 0 {
				for _, c := range []*Conn{ca, cb} {
					if n := pendingCalls(c); n != 0 {
						t.Errorf("%d calls pending in jsonrpc2", n)
					}
					assertClean(t, c.s)
				}
			}
		})
	}
}

func TestConnGo(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			p := newPair(t, k, nil)
			calls := make([]*Call, 100)
			for i := range calls {
				calls[i] = p.cli.Go(context.Background(), "echo", []int{i})
				if calls[i].ID().IsZero() {
					t.Fatal("a call has no id")
				}
			}
			for i, c := range calls {
				select {
				case <-c.Done():
				case <-time.After(waitLimit):
					t.Fatal("a future never completed")
				}
				raw, err := c.Raw()
				if err != nil || string(raw) != fmt.Sprintf("[%d]", i) {
					t.Errorf("call %d: %s, %v", i, raw, err)
				}
				var v []int
				if err := c.Result(&v); err != nil || len(v) != 1 || v[0] != i {
					t.Errorf("call %d: %v, %v", i, v, err)
				}
			}
			// A result that does not decode is an error of Result, not of the call.
			c := p.cli.Go(context.Background(), "echo", []string{"x"})
			var n []int
			if err := c.Result(&n); err == nil || !strings.Contains(err.Error(), "echo: decoding the result") {
				t.Errorf("decoding [\"x\"] into []int: %v", err)
			}
			if err := c.Result(nil); err != nil {
				t.Errorf("Result(nil): %v", err)
			}
		})
	}
}

// Params and results travel byte for byte; nil params are omitted.
func TestConnPayloads(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			p := newPair(t, k, nil)
			for _, params := range []string{`{"b" : [1.0, 2e3, "\u00e9<>&"]}`, `[]`, `{}`, "{\n  \"pretty\": true\n}"} {
				raw, err := p.cli.Go(context.Background(), "echo", json.RawMessage(params)).Raw()
				want := params
				if strings.Contains(params, "\n") {
					want = `{"pretty":true}` // compacted: a message is one line
				}
				if err != nil || string(raw) != want {
					t.Errorf("echo %s: %s, %v", params, raw, err)
				}
			}
			// No params: the handler sees none, and echo answers {}.
			raw, err := p.cli.Go(context.Background(), "echo", nil).Raw()
			if err != nil || string(raw) != `{}` {
				t.Errorf("echo without params: %s, %v", raw, err)
			}
			// Notifications carry params the same way.
			if err := p.cli.Notify(context.Background(), "note", json.RawMessage(`{"x" : 1}`)); err != nil {
				t.Fatal(err)
			}
			if err := p.cli.Notify(context.Background(), "bare", nil); err != nil {
				t.Fatal(err)
			}
			for _, want := range []struct{ method, params string }{{"note", `{"x" : 1}`}, {"bare", ""}} {
				select {
				case r := <-p.srvH.notes:
					if r.Method != want.method || string(r.Params) != want.params || !r.IsNotification() {
						t.Errorf("notification %s %s, want %s %s", r.Method, r.Params, want.method, want.params)
					}
				case <-time.After(waitLimit):
					t.Fatal("no notification")
				}
			}
			// Invalid raw JSON is refused before it reaches the wire.
			if err := p.cli.Notify(context.Background(), "note", json.RawMessage(`{bad`)); err == nil {
				t.Error("Notify with invalid JSON succeeded")
			}
			if err := p.cli.Call(context.Background(), "echo", json.RawMessage(`{bad`), nil); err == nil {
				t.Error("Call with invalid JSON succeeded")
			}
			if err := p.cli.Call(context.Background(), "echo", func() {}, nil); err == nil {
				t.Error("Call with unencodable params succeeded")
			}
			assertClean(t, p.cs)
			assertClean(t, p.ss)
		})
	}
}

// A call without response times out after ConnOptions.Timeout: the error
// is ErrTimeout and context.DeadlineExceeded, Abandoned is told, and no
// state is left behind once the next message has flowed.
func TestConnTimeout(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			type abandonment struct {
				id     ID
				method string
				cause  error
			}
			abandoned := make(chan abandonment, 4)
			p := newPair(t, k, &ConnOptions{
				Timeout: 20 * time.Millisecond,
				Abandoned: func(c *Conn, id ID, method string, cause error) {
					abandoned <- abandonment{id, method, cause}
				},
			})
			call := p.cli.Go(context.Background(), "hold", nil)
			held := <-p.srvH.held
			err := call.Result(nil)
			if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
				t.Fatalf("got %v, want ErrTimeout and context.DeadlineExceeded", err)
			}
			if !strings.HasPrefix(err.Error(), "hold: call timed out after 20ms") {
				t.Errorf("error text %q", err)
			}
			select {
			case a := <-abandoned:
				if a.id != call.ID() || a.method != "hold" || !errors.Is(a.cause, ErrTimeout) || !errors.Is(a.cause, context.DeadlineExceeded) {
					t.Errorf("Abandoned(%s, %s, %v)", a.id, a.method, a.cause)
				}
			case <-time.After(waitLimit):
				t.Fatal("Abandoned was not called")
			}
			// The next message flows: jsonrpc2 gets the stand-in first.
			if err := p.cli.Call(context.Background(), "ping", nil, nil); err != nil {
				t.Fatal(err)
			}
			if n := pendingCalls(p.cli); n != 0 {
				t.Errorf("jsonrpc2 holds %d pending calls", n)
			}
			assertClean(t, p.cs)
			// A late response is dropped as one to an unknown id.
			if err := p.srv.Reply(context.Background(), held, "late"); err != nil {
				t.Fatal(err)
			}
			if err := p.cli.Call(context.Background(), "ping", nil, nil); err != nil {
				t.Fatal(err)
			}
			if n := pendingCalls(p.cli); n != 0 {
				t.Errorf("jsonrpc2 holds %d pending calls", n)
			}
			assertClean(t, p.cs)
			assertClean(t, p.ss)
			if len(abandoned) != 0 {
				t.Error("Abandoned called for a call that succeeded")
			}
		})
	}
}

// A cancelled context abandons the call at once with context.Canceled.
func TestConnCancel(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			// Abandoned runs after the caller has returned, on a
			// goroutine of its own.
			abandoned := make(chan error, 4)
			cause := func() error {
				t.Helper()
				select {
				case err := <-abandoned:
					return err
				case <-time.After(waitLimit):
					t.Fatal("Abandoned was not called")
					return nil
				}
			}
			p := newPair(t, k, &ConnOptions{Abandoned: func(c *Conn, id ID, method string, err error) {
				abandoned <- err
			}})
			ctx, cancel := context.WithCancel(context.Background())
			call := p.cli.Go(ctx, "hold", nil)
			held := <-p.srvH.held
			cancel()
			err := call.Result(nil)
			if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			if err := cause(); !errors.Is(err, context.Canceled) {
				t.Errorf("Abandoned with cause %v", err)
			}
			// Already cancelled: the call is not even sent.
			if err := p.cli.Call(ctx, "ping", nil, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("call with a cancelled context: %v", err)
			}
			// A cause given to the cancellation is kept, and still matches.
			why := errors.New("user pressed stop")
			cctx, ccancel := context.WithCancelCause(context.Background())
			call = p.cli.Go(cctx, "hold", nil)
			held2 := <-p.srvH.held
			ccancel(why)
			if err := call.Result(nil); !errors.Is(err, context.Canceled) || !errors.Is(err, why) {
				t.Errorf("got %v, want context.Canceled and the cause", err)
			}
			if err := cause(); !errors.Is(err, why) {
				t.Errorf("Abandoned with cause %v", err)
			}
			p.srv.Release(held2)
			p.srv.Release(held)
			if err := p.cli.Call(context.Background(), "ping", nil, nil); err != nil {
				t.Fatal(err)
			}
			if n := pendingCalls(p.cli); n != 0 {
				t.Errorf("jsonrpc2 holds %d pending calls", n)
			}
			assertClean(t, p.cs)
			assertClean(t, p.ss)
		})
	}
}

// A context deadline replaces the connection's timeout, shorter or longer.
func TestConnContextDeadlineWins(t *testing.T) {
	checkLeaks(t)
	k := pairKinds[0]
	t.Run("shorter", func(t *testing.T) {
		p := newPair(t, k, nil) // the default timeout: a minute
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := p.cli.Call(ctx, "hold", nil, nil)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want the context's deadline", err)
		}
		if d := time.Since(start); d > DefaultTimeout/2 {
			t.Errorf("the call took %v", d)
		}
		p.srv.Release(<-p.srvH.held)
	})
	t.Run("longer", func(t *testing.T) {
		p := newPair(t, k, &ConnOptions{Timeout: 10 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		call := p.cli.Go(ctx, "hold", nil)
		held := <-p.srvH.held
		select {
		case <-call.Done():
			t.Fatalf("the connection's timeout ended a call with a deadline: %v", call.Result(nil))
		case <-time.After(100 * time.Millisecond): // ten times the connection's timeout
		}
		if err := p.srv.Reply(context.Background(), held, "ok"); err != nil {
			t.Fatal(err)
		}
		var s string
		if err := call.Result(&s); err != nil || s != "ok" {
			t.Fatalf("got %q, %v", s, err)
		}
	})
	t.Run("negative timeout means none", func(t *testing.T) {
		p := newPair(t, k, &ConnOptions{Timeout: -1})
		call := p.cli.Go(context.Background(), "hold", nil)
		held := <-p.srvH.held
		if _, ok := call.ctx.Deadline(); ok {
			t.Error("a call has a deadline with Timeout < 0")
		}
		if err := p.srv.Reply(context.Background(), held, "ok"); err != nil {
			t.Fatal(err)
		}
		if err := call.Result(nil); err != nil {
			t.Fatal(err)
		}
	})
}

// Close fails pending calls at once with ErrClosed and the cause; so do
// later calls, and Err reports it.
func TestConnCloseFailsPending(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			p := newPair(t, k, nil)
			if p.cli.Err() != nil {
				t.Fatalf("Err on an open connection: %v", p.cli.Err())
			}
			calls := []*Call{p.cli.Go(context.Background(), "hold", nil), p.cli.Go(context.Background(), "hold", nil)}
			<-p.srvH.held
			<-p.srvH.held
			cause := errors.New("child exited with status 3")
			if err := p.cli.CloseWithError(cause); err != nil {
				t.Fatal(err)
			}
			for _, c := range calls {
				within(t, "a pending call after Close", func() {
					if err := c.Result(nil); !errors.Is(err, ErrClosed) || !errors.Is(err, cause) {
						t.Errorf("pending call: %v, want ErrClosed with the cause", err)
					}
				})
			}
			if err := p.cli.Err(); !errors.Is(err, ErrClosed) || !errors.Is(err, cause) {
				t.Errorf("Err: %v", err)
			}
			if err := p.cli.Call(context.Background(), "ping", nil, nil); !errors.Is(err, ErrClosed) || !errors.Is(err, cause) {
				t.Errorf("call after Close: %v", err)
			}
			if c := p.cli.Go(context.Background(), "ping", nil); !errors.Is(c.Result(nil), ErrClosed) {
				t.Errorf("Go after Close: %v", c.Result(nil))
			}
			if err := p.cli.Notify(context.Background(), "note", map[string]int{"a": 1}); !errors.Is(err, ErrClosed) {
				t.Errorf("Notify after Close: %v", err)
			}
			// Only the first cause is kept, and closing again is fine.
			if err := p.cli.CloseWithError(errors.New("second")); err != nil {
				t.Errorf("second close: %v", err)
			}
			if err := p.cli.Close(); err != nil {
				t.Errorf("third close: %v", err)
			}
			if err := p.cli.Err(); !errors.Is(err, cause) || strings.Contains(err.Error(), "second") {
				t.Errorf("Err after more closes: %v", err)
			}
			// The server sees the connection go away.
			within(t, "the server noticing", func() { <-p.srv.Done() })
			if err := p.srv.Err(); !errors.Is(err, ErrClosed) || errors.Is(err, cause) {
				t.Errorf("server Err: %v", err)
			}
		})
	}
}

// A peer that goes away fails pending calls with ErrClosed; replying to
// its requests then fails too.
func TestConnPeerEOF(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			p := newPair(t, k, nil)
			call := p.cli.Go(context.Background(), "hold", nil)
			held := <-p.srvH.held
			p.srv.Close()
			within(t, "a pending call after the peer closed", func() {
				if err := call.Result(nil); !errors.Is(err, ErrClosed) {
					t.Errorf("pending call: %v, want ErrClosed", err)
				}
			})
			within(t, "Done", func() { <-p.cli.Done() })
			if err := p.cli.Err(); !errors.Is(err, ErrClosed) {
				t.Errorf("Err: %v", err)
			}
			if err := p.srv.Reply(context.Background(), held, 1); !errors.Is(err, ErrClosed) {
				t.Errorf("Reply on a closed connection: %v", err)
			}
			if err := p.srv.ReplyError(context.Background(), held, &Error{Code: 1, Message: "m"}); !errors.Is(err, ErrClosed) {
				t.Errorf("ReplyError on a closed connection: %v", err)
			}
			// Closing after the peer did records no cause.
			_ = p.cli.CloseWithError(errors.New("too late"))
			if err := p.cli.Err(); strings.Contains(err.Error(), "too late") {
				t.Errorf("Err names a cause given after the close: %v", err)
			}
		})
	}
}

// A read error other than EOF is the cause pending calls report.
func TestConnReadErrorIsCause(t *testing.T) {
	checkLeaks(t)
	boom := errors.New("medium failed")
	fr := &failingFramer{read: make(chan error)}
	cli := NewConn(NewStream(fr, &StreamOptions{Logger: quiet}), nil, &ConnOptions{Logger: quiet})
	defer cli.Close()
	call := cli.Go(context.Background(), "x", nil)
	fr.read <- boom
	if err := call.Result(nil); !errors.Is(err, ErrClosed) || !errors.Is(err, boom) {
		t.Fatalf("got %v, want ErrClosed with the read error", err)
	}
}

type failingFramer struct {
	read chan error
	once sync.Once
}

func (f *failingFramer) ReadFrame() ([]byte, error) {
	err, ok := <-f.read
	if !ok {
		return nil, io.EOF
	}
	return nil, err
}
func (f *failingFramer) WriteFrame([]byte) error { return nil }
func (f *failingFramer) Close() error {
	f.once.Do(func() { close(f.read) })
	return nil
}

// rawServer is a client Conn facing a peer whose bytes the test writes.
type rawServer struct {
	cli   *Conn
	cs    *Stream
	c     net.Conn
	lines chan string
}

func newRawServer(t *testing.T, opts *ConnOptions) *rawServer {
	c1, c2 := net.Pipe()
	if opts == nil {
		opts = &ConnOptions{}
	}
	opts.Logger = quiet
	rs := &rawServer{c: c2, lines: make(chan string, 64)}
	rs.cs = NewStream(NewLineFramer(c1, 0), &StreamOptions{Logger: quiet})
	rs.cli = NewConn(rs.cs, nil, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(c2)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			rs.lines <- line
		}
	}()
	t.Cleanup(func() { rs.cli.Close(); c2.Close(); <-done })
	return rs
}

// answer reads the next request and writes the response that reply
// builds from its raw id.
func (rs *rawServer) answer(t *testing.T, reply func(id string) string) {
	t.Helper()
	var line string
	select {
	case line = <-rs.lines:
	case <-time.After(waitLimit):
		t.Fatal("no request")
	}
	var m struct{ ID json.RawMessage }
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.ID == nil {
		t.Fatalf("request %q: %v", line, err)
	}
	if _, err := io.WriteString(rs.c, reply(string(m.ID))+"\n"); err != nil {
		t.Fatal(err)
	}
}

// Error responses keep their data byte for byte; results too.
func TestConnErrorResponses(t *testing.T) {
	checkLeaks(t)
	rs := newRawServer(t, nil)
	data := `{ "b" : [1.0, 2e3, "\u00e9<>&"] }`
	cases := []struct {
		name  string
		reply string // %s: the id
		want  *Error
	}{
		{"with data", `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"m\u00e9","data":` + data + `}}`,
			&Error{Code: -32001, Message: "mé", Data: json.RawMessage(data)}},
		{"data null", `{"jsonrpc":"2.0","id":%s,"error":{"code":5,"message":"","data":null}}`,
			&Error{Code: 5, Message: "", Data: json.RawMessage("null")}},
		{"no data", `{"error":{"message":"m","code":-1},"id":%s,"jsonrpc":"2.0"}`,
			&Error{Code: -1, Message: "m"}},
		{"code as string", `{"jsonrpc":"2.0","id":%s,"error":{"code":"-32000","message":"m"}}`,
			&Error{Code: CodeInternalError, Message: "peer sent a malformed error object", Data: json.RawMessage(`{"code":"-32000","message":"m"}`)}},
		{"fractional code", `{"jsonrpc":"2.0","id":%s,"error":{"code":1.5,"message":"m"}}`,
			&Error{Code: CodeInternalError, Message: "peer sent a malformed error object", Data: json.RawMessage(`{"code":1.5,"message":"m"}`)}},
		{"code too large", `{"jsonrpc":"2.0","id":%s,"error":{"code":9223372036854775808,"message":"m"}}`,
			&Error{Code: CodeInternalError, Message: "peer sent a malformed error object", Data: json.RawMessage(`{"code":9223372036854775808,"message":"m"}`)}},
		{"no message", `{"jsonrpc":"2.0","id":%s,"error":{"code":1}}`,
			&Error{Code: CodeInternalError, Message: "peer sent a malformed error object", Data: json.RawMessage(`{"code":1}`)}},
		{"error a string", `{"jsonrpc":"2.0","id":%s,"error":"boom"}`,
			&Error{Code: CodeInternalError, Message: "peer sent a malformed error object", Data: json.RawMessage(`"boom"`)}},
		{"error null", `{"jsonrpc":"2.0","id":%s,"error":null}`,
			&Error{Code: CodeInternalError, Message: "peer sent a malformed error object", Data: json.RawMessage(`null`)}},
		{"result and error", `{"jsonrpc":"2.0","id":%s,"result":1,"error":{"code":1,"message":"m"}}`,
			&Error{Code: CodeInternalError, Message: `peer sent a malformed response: a response cannot have both "result" and "error"`}},
		{"no jsonrpc", `{"id":%s,"result":1}`,
			&Error{Code: CodeInternalError, Message: `peer sent a malformed response: member "jsonrpc" must be "2.0"`}},
	}
	for _, tc := range cases {
		call := rs.cli.Go(context.Background(), "x", nil)
		rs.answer(t, func(id string) string { return fmt.Sprintf(tc.reply, id) })
		err := call.Result(nil)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v, want a *Error", tc.name, err)
		}
		if e.Code != tc.want.Code || e.Message != tc.want.Message || string(e.Data) != string(tc.want.Data) {
			t.Errorf("%s: got %+v (data %s), want %+v (data %s)", tc.name, e, e.Data, tc.want, tc.want.Data)
		}
	}
	for _, result := range []string{`{"a" : [1.0,  2e3], "<": "\u00e9"}`, `null`, `"s"`, `0`, `[]`} {
		call := rs.cli.Go(context.Background(), "x", nil)
		rs.answer(t, func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}` })
		if raw, err := call.Raw(); err != nil || string(raw) != result {
			t.Errorf("result %s: got %s, %v", result, raw, err)
		}
	}
	if n := pendingCalls(rs.cli); n != 0 {
		t.Errorf("jsonrpc2 holds %d pending calls", n)
	}
	assertClean(t, rs.cs)
}

// The error a handler replies with reaches the caller intact.
func TestConnReplyError(t *testing.T) {
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			checkLeaks(t)
			a, b := k.new()
			srv := NewConn(b, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
				_ = c.ReplyError(ctx, r, NewError(-32042, "nope: "+r.Method, map[string]any{"why": []int{1, 2}}))
			}), &ConnOptions{Logger: quiet})
			defer srv.Close()
			cli := NewConn(a, nil, &ConnOptions{Logger: quiet})
			defer cli.Close()
			err := cli.Call(context.Background(), "m", nil, nil)
			var e *Error
			if !errors.As(err, &e) || e.Code != -32042 || e.Message != "nope: m" || string(e.Data) != `{"why":[1,2]}` {
				t.Fatalf("got %v", err)
			}
			if err.Error() != `jsonrpc error -32042: nope: m (data: {"why":[1,2]})` {
				t.Errorf("text %q", err)
			}
			// A nil handler answers method not found.
			err = srv.Call(context.Background(), "missing", nil, nil)
			if !errors.As(err, &e) || e.Code != CodeMethodNotFound || e.Message != "method not found: missing" {
				t.Fatalf("nil handler: %v", err)
			}
		})
	}
}

// A request is answered at most once: Reply after Release, a second Reply
// or a ReplyError after Reply send nothing, and leave nothing behind.
func TestConnReplyOnce(t *testing.T) {
	checkLeaks(t)
	h := HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		switch r.Method {
		case "released":
			c.Release(r)
			if err := c.Reply(ctx, r, "after release"); err != nil {
				panic(err)
			}
			_ = c.ReplyError(ctx, r, &Error{Code: 1, Message: "after release"})
		case "twice":
			_ = c.Reply(ctx, r, "first")
			_ = c.Reply(ctx, r, "second")
			_ = c.ReplyError(ctx, r, &Error{Code: 1, Message: "third"})
			c.Release(r)
		case "error twice":
			_ = c.ReplyError(ctx, r, &Error{Code: 7, Message: "first"})
			_ = c.Reply(ctx, r, "second")
		case "ping":
			_ = c.Reply(ctx, r, json.RawMessage(`{"ok":true}`))
		}
	})
	p := newRawPeer(t, 0, h)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"released"}` + "\n")
	p.ping("2")
	p.send(`{"jsonrpc":"2.0","id":3,"method":"twice"}` + "\n")
	p.expect(`{"jsonrpc":"2.0","id":3,"result":"first"}`)
	p.ping("4")
	p.send(`{"jsonrpc":"2.0","id":5,"method":"error twice"}` + "\n")
	p.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":7,"message":"first"}}`)
	p.ping("6")
	p.ping("1") // the released id is free again
	assertClean(t, p.s)
}

// A result that cannot be encoded is answered with an internal error.
func TestConnReplyEncodingError(t *testing.T) {
	checkLeaks(t)
	errs := make(chan error, 2)
	p := newRawPeer(t, 0, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.Method == "raw" {
			errs <- c.Reply(ctx, r, json.RawMessage(`{"a":`))
			return
		}
		errs <- c.Reply(ctx, r, make(chan int))
	}))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"chan"}` + "\n")
	p.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"cannot encode result: json: unsupported type: chan int"}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"raw"}` + "\n")
	p.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"cannot encode result: json.RawMessage holds invalid JSON"}}`)
	for range 2 {
		if err := <-errs; err == nil {
			t.Error("Reply with an unencodable result returned nil")
		}
	}
	assertClean(t, p.s)
}

// Handlers get a context that ends when the connection closes.
func TestConnHandlerContext(t *testing.T) {
	checkLeaks(t)
	a, b := Pipe(&StreamOptions{Logger: quiet})
	ctxs := make(chan context.Context, 1)
	srv := NewConn(b, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) { ctxs <- ctx }), &ConnOptions{Logger: quiet})
	cli := NewConn(a, nil, &ConnOptions{Logger: quiet})
	defer cli.Close()
	if err := cli.Notify(context.Background(), "n", nil); err != nil {
		t.Fatal(err)
	}
	ctx := <-ctxs
	if ctx.Err() != nil {
		t.Fatal("handler context ended early")
	}
	srv.Close()
	within(t, "the handler's context ending", func() { <-ctx.Done() })
}
