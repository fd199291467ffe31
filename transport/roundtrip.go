package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// A RoundTripper is a Framer whose medium pairs a request with its
// response, as an HTTP POST does. A Conn on a Stream over a RoundTripper
// sends its calls through RoundTrip, on the caller's goroutine, instead of
// through jsonrpc2's write and read loop: the response comes back as the
// return value, and the hand-offs between goroutines that a call would
// otherwise take are saved. Everything else (notifications, replies,
// incoming requests) still goes through WriteFrame and ReadFrame.
//
// RoundTrip sends msg, one JSON-RPC request, and returns the message that
// answers it; the returned slice belongs to the caller. Other messages that
// arrive with the response (progress, logs, requests from the peer) go to
// ReadFrame, in order; RoundTrip returns only once the reader has taken
// them, so they are handled before the call returns, as they would be
// through the read loop. A failure of the medium that the peer should see
// as the call's failure is best returned as an error response made up by
// the framer. RoundTrip returns an error only when there is no response:
// the context's error when ctx ended, or an error matching ErrClosed
// (wrapping why) when the framer was closed, which must make a pending
// RoundTrip return. RoundTrip may be called concurrently, with itself and
// with WriteFrame; msg is not modified.
type RoundTripper interface {
	Framer
	RoundTrip(ctx context.Context, msg []byte) ([]byte, error)
}

// appendRequest appends a request with id n. params is valid JSON without
// raw line breaks, or nil.
func appendRequest(b []byte, n uint64, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendUint(b, n, 10)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	if params != nil {
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}')
}

// callDirect is Call over a RoundTripper.
func (c *Conn) callDirect(ctx context.Context, method string, params, result any) error {
	raw, err := c.roundTrip(ctx, method, params, nil)
	if err == nil {
		raw, err = c.checked(method, raw)
	}
	if err != nil {
		return err
	}
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		// The response is the caller's (RoundTripper): its result needs
		// no copy.
		*r = raw
		return nil
	}
	if err := decodeResult(raw, result); err != nil {
		return fmt.Errorf("%s: decoding the result: %w", method, err)
	}
	return nil
}

// goDirect is Go over a RoundTripper: the round trip runs on a goroutine
// of its own.
func (c *Conn) goDirect(ctx context.Context, method string, params any) *Call {
	call := &Call{c: c, method: method, done: make(chan struct{}), cancel: func() {}}
	// The id is taken here, so that Call.ID is known when Go returns.
	call.n = c.seq.Add(1)
	go func() {
		r, err := c.roundTrip(ctx, method, params, &call.n)
		if err == nil {
			r, err = c.checked(method, r)
		}
		call.finish(r, err)
	}()
	return call
}

// roundTrip sends one request through the RoundTripper and checks its
// response as the Stream checks what it reads. n, if not nil, is the id to
// use, taken from c.seq (which jsonrpc2's ids come from too, so the two
// never collide).
func (c *Conn) roundTrip(ctx context.Context, method string, params any, n *uint64) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		// Not sent, so there is nothing to abandon or tell the peer.
		return nil, fmt.Errorf("%s: %w", method, ctxErr(ctx))
	}
	select {
	case <-c.Done():
		return nil, fmt.Errorf("%s: %w", method, c.closedErr(ErrClosed))
	default:
	}
	b, err := marshal(params)
	if err != nil {
		return nil, fmt.Errorf("transport: encoding the params of %s: %w", method, err)
	}
	var id uint64
	if n != nil {
		id = *n
	} else {
		id = c.seq.Add(1)
	}
	if _, ok := ctx.Deadline(); !ok && c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.timeout, c.timeoutErr)
		defer cancel()
	}
	msg := appendRequest(make([]byte, 0, 64+len(method)+len(b)), id, method, b)
	resp, err := c.rt.RoundTrip(ctx, msg)
	if err != nil {
		switch {
		case errors.Is(err, ErrClosed):
			c.mu.Lock()
			cause := c.cause
			c.mu.Unlock()
			if cause != nil {
				err = fmt.Errorf("%w: %w", ErrClosed, cause)
			}
			return nil, fmt.Errorf("%s: %w", method, err)
		case ctx.Err() != nil:
			cause := ctxErr(ctx)
			if c.abandoned != nil {
				// Never on the caller's goroutine: see ConnOptions.Abandoned.
				go c.abandoned(c, IntID(id), method, cause)
			}
			return nil, fmt.Errorf("%s: %w", method, cause)
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return c.checkResponse(method, id, resp)
}

// isID reports whether got is the integer id n.
func isID(got ID, n uint64) bool {
	v, err := strconv.ParseUint(got.raw, 10, 64)
	return err == nil && v == n
}

// checkResponse validates the response to our request id and returns its
// result, or its error as an *Error (data byte for byte). A message that is
// not a well-formed response to id fails the call at once.
func (c *Conn) checkResponse(method string, id uint64, resp []byte) (json.RawMessage, error) {
	env, rej := decodeEnvelope(resp)
	malformed := func(why string) error {
		return &Error{Code: CodeInternalError, Message: "peer sent a malformed response: " + why}
	}
	switch {
	case rej != nil:
		return nil, malformed(rej.message)
	case env.kind != kindResponse:
		why := env.note
		if why == "" {
			why = "a request or notification instead of the response"
		}
		return nil, malformed(why)
	case !isID(env.id, id):
		return nil, malformed("it answers id " + env.id.String() + ", not " + strconv.FormatUint(id, 10))
	case env.errObj != nil:
		e := &Error{}
		if err := json.Unmarshal(env.errObj, e); err != nil {
			return nil, malformed("error object: " + err.Error()) // cannot happen: normalizeError
		}
		return nil, e
	}
	return env.result, nil
}
