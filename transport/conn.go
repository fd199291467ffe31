package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// DefaultTimeout bounds a call whose context has no deadline.
const DefaultTimeout = 60 * time.Second

// errDefaultTimeout is the timeout cause of Conns with DefaultTimeout,
// made once: a Conn per stateless HTTP request made it every time.
var errDefaultTimeout = fmt.Errorf("%w after %v", ErrTimeout, DefaultTimeout)

// Request is an incoming request or notification.
type Request struct {
	ID     ID // zero for a notification
	Method string
	// Params is nil when the message had none. Otherwise it is valid
	// JSON and valid UTF-8: every message a Conn or DirectRequest hands
	// on was checked whole first, so handlers need not check it again.
	Params json.RawMessage

	slot   uint64      // the stream-local id jsonrpc2 knows it by
	direct *directSink // set for a DirectRequest: where its response goes
}

// IsNotification reports whether r expects no response.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }

// A Handler receives a Conn's incoming requests and notifications. Handle is
// called on the connection's read loop, one message at a time in arrival
// order: it answers a request with Conn.Reply, Conn.ReplyError or
// Conn.Release, from any goroutine, once. The context is cancelled when the
// connection closes.
//
// While Handle runs, nothing more is read from the peer. A handler should
// hand long work to another goroutine and return; blocking is how it
// applies back-pressure, on purpose: mcp's server session blocks here while
// the session has as many requests in flight as it allows, so that a peer
// that floods requests, or does not read its replies, holds up only its
// own connection. A handler that blocks must still return once ctx ends.
type Handler interface {
	Handle(ctx context.Context, c *Conn, r *Request)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, c *Conn, r *Request)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, c *Conn, r *Request) { f(ctx, c, r) }

// ConnOptions configure a Conn. The zero value is ready to use.
type ConnOptions struct {
	// Timeout bounds calls whose context has no deadline: zero means
	// DefaultTimeout, a negative value means no bound.
	Timeout time.Duration
	// Abandoned, if set, is called when a call is given up because its
	// context ended, so that the protocol above can tell the peer (MCP sends
	// notifications/cancelled). It runs on a goroutine of its own, after
	// the caller has returned: telling the peer is a write, which a peer
	// that has stopped reading holds up (see StreamOptions.WriteTimeout).
	Abandoned func(c *Conn, id ID, method string, cause error)
	// Logger receives jsonrpc2's and the stream's diagnostics; nil means
	// slog.Default(). (To see the messages themselves, wrap the Framer in
	// TapFramer.)
	Logger *slog.Logger
	// CheckResult, if set, sees each result before any caller can decode
	// it (Conn.Call, Call.Result, Call.Raw); an error fails the call with
	// it, after the method's name. It runs once per response, on the
	// caller's goroutine or the call's own. The client bounds there what a
	// result may take once decoded: every decode of a response into Go
	// values passes this one place.
	CheckResult func(method string, result json.RawMessage) error
}

// Conn is a JSON-RPC connection: a jsonrpc2.Conn on a Stream. jsonrpc2 owns
// the read loop and the pending calls; Conn adds futures, timeouts, the
// cause of a close, and carries payloads beside jsonrpc2 (see Stream).
type Conn struct {
	rpc        *jsonrpc2.Conn
	s          *Stream
	h          Handler
	timeout    time.Duration
	timeoutErr error // the cause of a call's end at timeout, made once
	abandoned  func(*Conn, ID, string, error)
	check      func(string, json.RawMessage) error // ConnOptions.CheckResult
	rt         RoundTripper                        // the Stream's framer, when it pairs calls (roundtrip.go)

	seq   atomic.Uint64 // our request ids and payload tickets
	ready chan struct{} // closed once rpc is set: the read loop starts before
	// gate is held while a message is handed to jsonrpc2, which writes it
	// under a mutex of its own: a sender waits here instead, where its
	// context can end the wait when another's write is stuck.
	gate chan struct{}

	mu    sync.Mutex
	cause error // why the connection closed, once known
}

// NewConn starts a connection on s that hands incoming messages to h (nil:
// every request is answered with method-not-found). The connection lives
// until Close or until the stream ends.
func NewConn(s *Stream, h Handler, opts *ConnOptions) *Conn {
	if opts == nil {
		opts = &ConnOptions{}
	}
	c := &Conn{s: s, h: h, timeout: opts.Timeout, abandoned: opts.Abandoned, check: opts.CheckResult, ready: make(chan struct{}), gate: make(chan struct{}, 1)}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	c.timeoutErr = errDefaultTimeout
	if c.timeout != DefaultTimeout {
		c.timeoutErr = fmt.Errorf("%w after %v", ErrTimeout, c.timeout)
	}
	if c.h == nil {
		c.h = HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
			if !r.IsNotification() {
				_ = c.ReplyError(ctx, r, &Error{Code: CodeMethodNotFound, Message: "method not found: " + r.Method})
			}
		})
	}
	if opts.Logger != nil {
		s.log = newClosingLog(opts.Logger)
	}
	c.rt, _ = s.f.(RoundTripper)
	s.enableTickets()
	s.mu.Lock()
	s.onWriteFail = func(err error) {
		<-c.ready
		_ = c.CloseWithError(err)
	}
	s.mu.Unlock()
	c.rpc = jsonrpc2.NewConn(context.Background(), s, rpcHandler{c}, jsonrpc2.SetLogger(printfLogger{s.log}))
	close(c.ready)
	return c
}

// rpcHandler turns jsonrpc2's requests back into what the peer sent.
type rpcHandler struct{ c *Conn }

func (h rpcHandler) Handle(ctx context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) {
	<-h.c.ready
	if r.Params == nil {
		return
	}
	slot, err := strconv.ParseUint(string(*r.Params), 10, 64)
	if err != nil {
		return
	}
	id, params, related, ok := h.c.s.takeInbound(slot)
	if !ok {
		return
	}
	if related != nil {
		ctx = context.WithValue(ctx, relatedKey{}, related)
	}
	req := &Request{ID: id, Method: r.Method, Params: params, slot: slot}
	if _, ok := h.c.s.f.(RelatedWriter); ok && !id.IsZero() {
		ctx = h.c.WithRequest(ctx, id) // a context more per request, only where it is of use
	}
	h.c.h.Handle(ctx, h.c, req)
}

// marshal encodes v, passing a json.RawMessage through unchanged once it is
// known to be valid JSON (a []byte is encoded like any other value, as a
// base64 string). What goes beside jsonrpc2 is not checked by its encoder,
// and a malformed message would leave the peer unable to answer.
func marshal(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case json.RawMessage:
		if v == nil {
			return nil, nil
		}
		if !jsonscan.ValidMessage(v) {
			return nil, errors.New("json.RawMessage holds invalid JSON")
		}
		if jsonscan.HasLineBreak(v) {
			// Only insignificant white space can hold a raw line break in
			// valid JSON, and a line-delimited message cannot carry one.
			var c bytes.Buffer
			if err := json.Compact(&c, v); err != nil {
				return nil, err
			}
			return c.Bytes(), nil
		}
		return v, nil
	case nil:
		return nil, nil
	}
	return json.Marshal(v)
}

// Reply answers r with result, which is JSON-encoded (a json.RawMessage is
// sent as is and must be valid JSON). A request answered or released before
// is not answered again.
func (c *Conn) Reply(ctx context.Context, r *Request, result any) error {
	b, err := marshal(result)
	if err != nil {
		_ = c.ReplyError(ctx, r, &Error{Code: CodeInternalError, Message: "cannot encode result: " + err.Error()})
		return fmt.Errorf("transport: encoding the result of %s: %w", r.Method, err)
	}
	if b == nil {
		b = json.RawMessage("{}")
	}
	if r.direct != nil {
		r.direct.result(r.ID, b)
		return nil
	}
	if err := c.enter(ctx); err != nil {
		return fmt.Errorf("transport: replying to %s: %w", r.Method, err)
	}
	defer c.leave()
	t := c.seq.Add(1)
	c.s.stash(t, b, nil)
	if err := c.rpc.Reply(ctx, jsonrpc2.ID{Num: r.slot}, t); err != nil {
		c.s.unstash(t)
		return c.closedErr(err)
	}
	return nil
}

// enter takes the gate, unless ctx ends or the connection closes first.
func (c *Conn) enter(ctx context.Context) error {
	select {
	case c.gate <- struct{}{}:
		return nil
	default:
	}
	select {
	case c.gate <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctxErr(ctx)
	case <-c.Done():
		return c.closedErr(ErrClosed)
	}
}

func (c *Conn) leave() { <-c.gate }

// ReplyError answers r with a JSON-RPC error.
func (c *Conn) ReplyError(ctx context.Context, r *Request, e *Error) error {
	if r.direct != nil {
		r.direct.error(r.ID, e)
		return nil
	}
	je := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 {
		d := json.RawMessage(e.Data)
		je.Data = &d
	}
	if err := c.enter(ctx); err != nil {
		return fmt.Errorf("transport: replying to %s: %w", r.Method, err)
	}
	defer c.leave()
	if err := c.rpc.ReplyWithError(ctx, jsonrpc2.ID{Num: r.slot}, je); err != nil {
		return c.closedErr(err)
	}
	return nil
}

// Release gives up on answering r, as MCP requires for a cancelled request.
func (c *Conn) Release(r *Request) {
	if r.direct != nil {
		r.direct.release()
		return
	}
	c.s.release(r.slot)
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	b, err := marshal(params)
	if err != nil {
		return fmt.Errorf("transport: encoding the params of %s: %w", method, err)
	}
	if err := c.enter(ctx); err != nil {
		return fmt.Errorf("transport: sending %s: %w", method, err)
	}
	defer c.leave()
	var p any
	var t uint64
	if b != nil {
		t = c.seq.Add(1)
		c.s.stash(t, b, c.requestOf(ctx))
		p = t
	}
	if err := c.rpc.Notify(ctx, method, p); err != nil {
		if b != nil {
			c.s.unstash(t)
		}
		return c.closedErr(err)
	}
	return nil
}

// Call sends a request and waits for its response, which it decodes into
// result (unless result is nil). The wait ends with the context, or after the
// connection's timeout when the context has no deadline; the peer is then
// told through ConnOptions.Abandoned.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if c.rt != nil {
		return c.callDirect(ctx, method, params, result)
	}
	call := c.start(ctx, method, params)
	if call.sent {
		call.wait()
	}
	return call.Result(result)
}

// Go sends a request and returns once it is written, without waiting for
// the response; the returned Call completes when the response arrives, the
// context ends or the timeout passes. Waiting for another sender's write
// ends with the context; a write of its own that the peer does not take
// ends with the connection, after StreamOptions.WriteTimeout. Over a
// RoundTripper (HTTP), Go returns at once and the request is sent on a
// goroutine of its own; a failure to send completes the Call.
func (c *Conn) Go(ctx context.Context, method string, params any) *Call {
	if c.rt != nil {
		return c.goDirect(ctx, method, params)
	}
	call := c.start(ctx, method, params)
	if call.sent {
		go call.wait()
	}
	return call
}

func (c *Conn) start(ctx context.Context, method string, params any) *Call {
	call := &Call{c: c, method: method, done: make(chan struct{})}
	call.ctx, call.cancel = ctx, func() {}
	if _, ok := ctx.Deadline(); !ok && c.timeout > 0 {
		call.ctx, call.cancel = context.WithTimeoutCause(ctx, c.timeout, c.timeoutErr)
	}
	if err := ctx.Err(); err != nil {
		// Not sent, so there is nothing to abandon or tell the peer.
		call.finish(nil, fmt.Errorf("%s: %w", method, ctxErr(ctx)))
		return call
	}
	b, err := marshal(params)
	if err != nil {
		call.finish(nil, fmt.Errorf("transport: encoding the params of %s: %w", method, err))
		return call
	}
	if err := c.enter(call.ctx); err != nil {
		// Not sent: the wait for another's write ended first.
		call.finish(nil, fmt.Errorf("%s: %w", method, err))
		return call
	}
	call.n = c.seq.Add(1)
	var p any
	if b != nil {
		p = call.n
	}
	if about := c.requestOf(ctx); b != nil || about != nil {
		// Without params, only what the call is about is kept, under
		// its id: roots/list is as much about a request as sampling.
		c.s.stash(call.n, b, about)
	}
	call.w, err = c.rpc.DispatchCall(call.ctx, method, p, jsonrpc2.PickID(jsonrpc2.ID{Num: call.n}))
	c.leave()
	if err != nil {
		c.s.unstash(call.n)
		call.finish(nil, fmt.Errorf("%s: %w", method, c.closedErr(err)))
		return call
	}
	call.sent = true
	return call
}

// Call is a request in flight: a future for its response.
type Call struct {
	c      *Conn
	method string
	n      uint64
	w      jsonrpc2.Waiter
	sent   bool // the request went out: wait must run, exactly once
	ctx    context.Context
	cancel context.CancelFunc

	done   chan struct{}
	result json.RawMessage
	err    error
}

// ID returns the request's id.
func (call *Call) ID() ID { return IntID(call.n) }

// Done is closed when the call has completed.
func (call *Call) Done() <-chan struct{} { return call.done }

// Result waits for the call to complete and decodes its result into v
// (unless v is nil). It returns a *Error for an error response.
func (call *Call) Result(v any) error {
	<-call.done
	if call.err != nil {
		return call.err
	}
	if v == nil {
		return nil
	}
	if err := decodeResult(call.result, v); err != nil {
		return fmt.Errorf("%s: decoding the result: %w", call.method, err)
	}
	return nil
}

// decodeResult decodes a result that the Stream has already checked to be
// one valid JSON value. A json.Unmarshaler gets the bytes directly, as
// json.Unmarshal would give them, but without json.Unmarshal's own check
// and scan of the whole value first: for a result of megabytes, those two
// passes cost several times what the decoder itself did.
func decodeResult(b json.RawMessage, v any) error {
	if u, ok := v.(json.Unmarshaler); ok && len(b) > 0 {
		return u.UnmarshalJSON(b)
	}
	return json.Unmarshal(b, v)
}

// Raw waits for the call to complete and returns its result undecoded.
func (call *Call) Raw() (json.RawMessage, error) {
	<-call.done
	return call.result, call.err
}

func (call *Call) wait() {
	err := call.w.Wait(call.ctx, nil)
	c := call.c
	switch {
	case err == nil:
		r, _ := c.s.takeResult(call.n)
		call.finish(c.checked(call.method, r.result))
	case call.ctx.Err() != nil && !errors.Is(err, jsonrpc2.ErrClosed):
		c.s.abandon(call.n)
		cause := ctxErr(call.ctx)
		if c.abandoned != nil {
			// Never on the caller's goroutine: see ConnOptions.Abandoned.
			go c.abandoned(c, call.ID(), call.method, cause)
		}
		call.finish(nil, fmt.Errorf("%s: %w", call.method, cause))
	default:
		var je *jsonrpc2.Error
		if errors.As(err, &je) {
			r, _ := c.s.takeResult(call.n)
			e := &Error{Code: je.Code, Message: je.Message}
			if len(r.err) > 0 {
				_ = json.Unmarshal(r.err, e) // keeps data byte for byte
			} else if je.Data != nil {
				e.Data = *je.Data
			}
			call.finish(nil, e)
			return
		}
		c.s.takeResult(call.n)
		call.finish(nil, fmt.Errorf("%s: %w", call.method, c.closedErr(err)))
	}
}

// ctxErr is why ctx ended: its cause, made to match ctx.Err() too (so a
// connection timeout is also context.DeadlineExceeded).
func ctxErr(ctx context.Context) error {
	cause := context.Cause(ctx)
	if err := ctx.Err(); !errors.Is(cause, err) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return cause
}

// checked passes a result through ConnOptions.CheckResult.
func (c *Conn) checked(method string, result json.RawMessage) (json.RawMessage, error) {
	if c.check != nil {
		if err := c.check(method, result); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
	}
	return result, nil
}

func (call *Call) finish(result json.RawMessage, err error) {
	call.result, call.err = result, err
	call.cancel()
	close(call.done)
}

// Done is closed when the connection has closed, by either side.
func (c *Conn) Done() <-chan struct{} { return c.rpc.DisconnectNotify() }

// InputEnded is closed when nothing more will be read from the peer
// (Stream.InputEnded), which may be before Done: the connection still
// answers the requests it read.
func (c *Conn) InputEnded() <-chan struct{} { return c.s.InputEnded() }

// Close closes the connection: pending calls fail with ErrClosed, and the
// contexts of running handlers are cancelled. It is safe to call more than
// once.
func (c *Conn) Close() error { return c.CloseWithError(nil) }

// CloseWithError closes the connection and makes cause part of the error
// that pending and later calls fail with (a child's exit status, say). Only
// the first cause is kept.
func (c *Conn) CloseWithError(cause error) error {
	c.mu.Lock()
	select {
	case <-c.Done():
		// Closed already, by the peer or an earlier Close: cause is not
		// why.
	default:
		if c.cause == nil {
			c.cause = cause
		}
	}
	c.mu.Unlock()
	if err := c.rpc.Close(); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		return err
	}
	return nil
}

// Err returns nil while the connection is open, and afterwards an error
// that matches ErrClosed and carries the cause of the close where known.
func (c *Conn) Err() error {
	select {
	case <-c.Done():
		return c.closedErr(ErrClosed)
	default:
		return nil
	}
}

func (c *Conn) closedErr(err error) error {
	if errors.Is(err, ErrWriteTimeout) {
		// The stream has failed for good and is closing the connection
		// (failWrite): report it as the close it is.
		c.mu.Lock()
		if c.cause == nil {
			c.cause = err
		}
		c.mu.Unlock()
		err = ErrClosed
	}
	if !errors.Is(err, jsonrpc2.ErrClosed) {
		return err
	}
	c.mu.Lock()
	cause := c.cause
	c.mu.Unlock()
	if cause == nil {
		if rerr := c.s.readErr(); rerr != nil && !errors.Is(rerr, io.EOF) {
			cause = rerr
		}
	}
	if cause == nil {
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrClosed, cause)
}

// printfLogger routes jsonrpc2's Printf logging to slog at debug level: what
// it reports (responses to unknown ids, closed connections) is expected in
// MCP and handled above it.
type printfLogger struct{ log *closingLog }

func (l printfLogger) Printf(format string, args ...any) {
	l.log.Debug(fmt.Sprintf(format, args...))
}

// AllowBatches turns the acceptance of JSON-RPC batches on or off (see
// Stream.AllowBatches).
func (c *Conn) AllowBatches(on bool) { c.s.AllowBatches(on) }
