package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/winbridge/winbridge/transport"
)

// sink collects the response to a request sent by RoundTrip. answer,
// madeUp and pushed belong to the RoundTrip's goroutine; late is guarded
// by Framer.mu.
type sink struct {
	ctx    context.Context
	cancel context.CancelFunc // ends the POST; shutdown calls it too
	answer []byte             // the response, or an error response made up here
	madeUp bool               // answer is the framer's own (a failure), not the server's
	err    error              // why the POST was not sent or answered, for a madeUp answer
	pushed bool               // other messages went to ReadFrame during the call
	late   chan []byte
}

var (
	_ transport.RoundTripper  = (*Framer)(nil)
	_ transport.RelatedFramer = (*Framer)(nil)
)

// RoundTrip implements transport.RoundTripper: it POSTs the request msg
// and returns its response, on the caller's goroutine. What the request's
// SSE stream carries before the response (progress, logs, requests of the
// server) goes to ReadFrame, and RoundTrip returns once the reader has
// taken it. Everything WriteFrame does for a request holds: the headers of
// each era, the session and version learnt from initialize, resumption of
// an interrupted SSE stream, HTTP errors as the call's error response, and
// a 404 in a session as the framer's end (ErrSessionExpired). Unlike
// WriteFrame's background POST, the POST ends when ctx does.
func (f *Framer) RoundTrip(ctx context.Context, msg []byte) ([]byte, error) {
	m := peekOut(msg)
	if !m.isRequest() {
		return nil, errors.New("mcphttp: RoundTrip: the message is not a request")
	}
	s := &m.own // one allocation with the message
	m.sink = s
	key := m.id.Key()
	// The POST ends with the call or with the framer (shutdown cancels
	// every RoundTrip in awaiting).
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	f.mu.Lock()
	if f.closing {
		f.mu.Unlock()
		return nil, f.closedErr()
	}
	stateless := f.eraLocked(m)
	if _, dup := f.awaiting[key]; dup {
		f.mu.Unlock()
		return nil, fmt.Errorf("mcphttp: RoundTrip: id %s is already in flight", m.id)
	}
	f.awaiting[key] = s
	f.wg.Add(1) // under mu, so never concurrent with Close's Wait
	f.mu.Unlock()

	f.roundTrip(s.ctx, m, stateless)
	s.cancel()

	f.mu.Lock()
	delete(f.awaiting, key)
	closing := f.closing // set before shutdown cancels the POST
	var late []byte
	if s.late != nil {
		select {
		case late = <-s.late:
		default:
		}
	}
	f.mu.Unlock()
	f.wg.Done()

	answer := s.answer
	if late != nil && (answer == nil || s.madeUp) {
		answer = late
	}
	if s.madeUp && s.err != nil && answer != nil && late == nil {
		// The POST failed before any answer: the caller gets the Go
		// error, which it can branch on (an oauth sentinel, a dial
		// error), not a JSON-RPC error no server sent.
		return nil, fmt.Errorf("mcphttp: POST failed: %w", s.err)
	}
	if answer == nil {
		if closing {
			return nil, f.closedErr()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("mcphttp: no response") // cannot happen: roundTrip fails the call
	}
	if s.pushed {
		f.barrier(ctx)
	}
	return answer, nil
}

// barrier waits until the reader has handled the frames queued so far, so
// that a notification that came before a response is handled before the
// call returns, as it would be if the response came through ReadFrame.
func (f *Framer) barrier(ctx context.Context) {
	ch := make(chan struct{})
	select {
	case f.in <- inFrame{barrier: ch}:
	case <-f.done:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-ch:
	case <-f.done:
	case <-ctx.Done():
	}
}

// pushFor queues a frame that came during the request m: for a RoundTrip,
// the wait for room ends with its call too, and the call waits for the
// reader before it returns.
func (f *Framer) pushFor(m *outMsg, fr inFrame) {
	if m == nil || m.sink == nil {
		f.push(fr)
		return
	}
	m.sink.pushed = true
	fr.related = m.sink.ctx
	select {
	case f.in <- fr:
	case <-f.done:
	case <-m.sink.ctx.Done():
	}
}

// awaitElsewhere waits for the response to a RoundTrip that the server
// accepted (202) to answer on another stream.
func (f *Framer) awaitElsewhere(ctx context.Context, s *sink) {
	f.mu.Lock()
	if s.late == nil {
		s.late = make(chan []byte, 1)
	}
	ch := s.late
	f.mu.Unlock()
	select {
	case msg := <-ch:
		s.answer, s.madeUp = msg, false
	case <-ctx.Done():
	case <-f.done:
	}
}

// deliver hands a response that came on another request's stream or the
// GET stream to the RoundTrip waiting for it. It reports whether one was.
func (f *Framer) deliver(msg []byte, env inEnvelope) bool {
	id, err := transport.ParseID(env.id)
	if err != nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.awaiting[id.Key()]
	if s == nil {
		return false
	}
	if s.late == nil {
		s.late = make(chan []byte, 1)
	}
	select {
	case s.late <- msg:
	default: // answered already: a second answer is dropped
		f.log.Debug("mcphttp: dropped a second response", "id", id.String())
	}
	return true
}

// closedErr is a RoundTrip's error once the framer has ended.
func (f *Framer) closedErr() error {
	f.mu.Lock()
	cause := f.cause
	f.mu.Unlock()
	if cause == nil || errors.Is(cause, io.EOF) {
		return fmt.Errorf("mcphttp: framer: %w", transport.ErrClosed)
	}
	return fmt.Errorf("mcphttp: framer: %w: %w", transport.ErrClosed, cause)
}

// answersHead reports whether the head of an oversized message is a
// response with the given id: an oversized response to a RoundTrip fails
// its call at once instead of leaving it to its deadline.
func answersHead(h []byte, id transport.ID) bool {
	dec := json.NewDecoder(bytes.NewReader(h))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var gotID, response bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		switch t {
		case "method":
			return false
		case "result", "error":
			response = true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if t == "id" {
			got, err := transport.ParseID(v)
			gotID = err == nil && got.Key() == id.Key()
		}
	}
	return gotID && response
}
