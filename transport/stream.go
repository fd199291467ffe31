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
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
)

// StreamOptions configure a Stream. The zero value is ready to use.
type StreamOptions struct {
	// DrainTimeout bounds how long the stream, once its input has ended,
	// keeps the end from jsonrpc2 so that requests already read can still be
	// answered: a client that writes its requests and then closes its side
	// of a pipe gets its replies. Zero means DefaultDrainTimeout; a negative
	// value reports the end at once.
	DrainTimeout time.Duration

	// WriteTimeout bounds the writing of each message to the peer. A peer
	// that stops reading its input would otherwise hold every sender, and
	// with it every caller, forever. A write that takes longer fails the
	// stream for good: the medium is closed (which ends the stuck write),
	// later writes fail, and a Conn on the stream closes, failing its
	// pending calls with an error that matches ErrWriteTimeout and names
	// this setting. Zero means DefaultWriteTimeout; a negative value means
	// no bound.
	WriteTimeout time.Duration

	// Logger receives what the stream drops or answers on its own: malformed
	// input, responses to unknown ids. Nil means slog.Default().
	Logger *slog.Logger
}

// DefaultDrainTimeout is the StreamOptions.DrainTimeout used when none is set.
const DefaultDrainTimeout = 5 * time.Second

// DefaultWriteTimeout is the StreamOptions.WriteTimeout used when none is
// set: long enough for a busy peer that reads between pieces of work, short
// enough that a peer that has stopped reading is noticed.
const DefaultWriteTimeout = 30 * time.Second

// A Stream is a jsonrpc2.ObjectStream over a Framer. See the package
// documentation for what it validates and translates.
//
// jsonrpc2 sees stream-local ids: an incoming request's id is replaced by a
// small number and restored, byte for byte, in the reply. A reply whose
// request was already answered or released is dropped, so no request is
// answered twice.
type Stream struct {
	f   Framer
	log *closingLog // silent once closed

	wmu sync.Mutex // serializes WriteFrame; held briefly, never while reading
	wd  writeWatchdog

	mu       sync.Mutex
	tickets  bool                   // payloads travel beside jsonrpc2 (set by NewConn)
	nextSlot uint64                 // stream-local ids for incoming requests and notifications
	inbound  map[uint64]*inboundMsg // by slot: incoming messages not yet replied to or taken
	inflight map[string]uint64      // by ID.Key: slots of unanswered incoming requests
	outgoing map[string]uint64      // by ID.Key: our requests awaiting a response, to our id number
	payloads map[uint64]json.RawMessage
	about    map[uint64]ID // by ticket: the peer's request a message is about (RelatedWriter), made when needed
	results  map[uint64]reply
	injected [][]byte // messages for jsonrpc2 made up by the stream itself
	closed   bool
	rerr     error // why reading stopped

	batches bool              // JSON-RPC batches accepted (MCP 2025-03-26)
	batchOf map[uint64]*batch // by slot: the batch an unanswered request came in

	onWriteFail func(error) // set by NewConn

	drainTimeout time.Duration
	idle         chan struct{} // closed when inflight empties while draining
	done         chan struct{} // closed by Close
	inputEnded   chan struct{} // closed when the input ends (InputEnded)
	endOnce      sync.Once
}

type inboundMsg struct {
	id      ID // zero for notifications
	params  json.RawMessage
	related context.Context // RelatedFramer: the call the request arrived with, or nil
}

// batch collects the responses to the requests of one incoming JSON-RPC
// batch, which are sent back together, as one array.
type batch struct {
	pending int      // requests not yet answered or released
	replies [][]byte // responses so far, and errors for invalid elements
}

// reply is a response payload held for a Conn call (tickets mode).
type reply struct {
	result json.RawMessage
	err    json.RawMessage
}

// NewStream returns a Stream over f.
func NewStream(f Framer, opts *StreamOptions) *Stream {
	s := &Stream{
		f:        f,
		inbound:  map[uint64]*inboundMsg{},
		inflight: map[string]uint64{},
		outgoing: map[string]uint64{},
		payloads: map[uint64]json.RawMessage{},
		results:  map[uint64]reply{},
	}
	s.drainTimeout = DefaultDrainTimeout
	s.done = make(chan struct{})
	s.inputEnded = make(chan struct{})
	s.wd.timeout, s.wd.epoch = DefaultWriteTimeout, time.Now()
	if opts != nil && opts.WriteTimeout != 0 {
		s.wd.timeout = opts.WriteTimeout
	}
	s.wd.fail = s.failWrite
	s.log = newClosingLog(slog.Default())
	if opts != nil && opts.Logger != nil {
		s.log = newClosingLog(opts.Logger)
	}
	if opts != nil && opts.DrainTimeout != 0 {
		s.drainTimeout = opts.DrainTimeout
	}
	return s
}

// ReadObject implements jsonrpc2.ObjectStream. It answers malformed messages
// itself and keeps reading; it returns an error only when the medium fails
// or ends.
func (s *Stream) ReadObject(v any) error {
	for {
		if msg := s.popInjected(); msg != nil {
			return json.Unmarshal(msg, v)
		}
		frame, related, err := s.readFrame()
		if err != nil {
			var tl *TooLargeError
			if errors.As(err, &tl) {
				if msg := s.tooLarge(tl); msg != nil {
					return json.Unmarshal(s.before(msg), v)
				}
				continue
			}
			s.endOnce.Do(func() { close(s.inputEnded) })
			if errors.Is(err, io.EOF) {
				s.drain()
			}
			if werr := s.wd.failed(); werr != nil {
				err = werr // the medium was closed because of it
			}
			s.mu.Lock()
			s.rerr = err
			s.mu.Unlock()
			return err
		}
		// An array is a batch; the cheap test comes first, so ordinary
		// messages do not take the lock.
		if t := trimJSONSpace(frame); len(t) > 0 && t[0] == '[' && s.batching() {
			msg, err := s.acceptBatch(t)
			if err != nil {
				return err
			}
			if msg != nil {
				return json.Unmarshal(msg, v)
			}
			continue
		}
		req, resp, rej := s.accept(frame, related)
		if rej != nil {
			s.log.Debug("transport: rejected message", "code", rej.code, "reason", rej.message)
			if err := s.writeRaw(appendErrorResponse(nil, rej.id, rej.code, rej.message)); err != nil {
				return err
			}
			continue
		}
		if req != nil || resp != nil {
			return s.hand(v, req, resp)
		}
	}
}

// readFrame reads the next frame, and the call it arrived with when the
// framer can tell (RelatedFramer).
func (s *Stream) readFrame() ([]byte, context.Context, error) {
	if rf, ok := s.f.(RelatedFramer); ok {
		return rf.ReadFrameRelated()
	}
	frame, err := s.f.ReadFrame()
	return frame, nil, err
}

// hand gives jsonrpc2 an accepted message, behind any injected ones.
func (s *Stream) hand(v any, req *jsonrpc2.Request, resp *jsonrpc2.Response) error {
	s.mu.Lock()
	if len(s.injected) == 0 {
		s.mu.Unlock()
		return deliver(v, req, resp)
	}
	s.mu.Unlock()
	b, err := encodeRPC(req, resp)
	if err != nil {
		return err
	}
	return json.Unmarshal(s.before(b), v)
}

// before returns the oldest injected message, queueing msg behind it, or
// msg itself when nothing is queued. A stand-in injected while the read was
// blocked thus reaches jsonrpc2 before the message that ended the wait.
func (s *Stream) before(msg []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.injected) == 0 {
		return msg
	}
	first := s.injected[0]
	s.injected = append(s.injected[1:], msg)
	return first
}

// accept validates an incoming message and returns what jsonrpc2 should
// see, or nothing when the message is to be dropped.
//
// related is the call the message arrived with (RelatedFramer), or nil;
// a request keeps it for its handler.
func (s *Stream) accept(frame []byte, related context.Context) (*jsonrpc2.Request, *jsonrpc2.Response, *rejection) {
	env, rej := decodeEnvelope(frame)
	if rej != nil {
		return nil, nil, rej
	}
	if env.kind == 0 {
		s.log.Debug("transport: dropped a message that cannot be answered", "reason", env.note)
		return nil, nil, nil
	}
	switch env.kind {
	case kindRequest, kindNotification:
		method, ok := wirenames.Unquote(env.method)
		if !ok {
			return nil, nil, &rejection{id: env.id, code: CodeInvalidRequest, message: "invalid request: member \"method\" is not a valid string"}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if env.kind == kindRequest {
			if _, dup := s.inflight[env.id.Key()]; dup {
				return nil, nil, &rejection{id: env.id, code: CodeInvalidRequest, message: "invalid request: id " + env.id.String() + " is already in use by a request in progress"}
			}
		}
		s.nextSlot++
		slot := s.nextSlot
		if env.kind == kindRequest {
			s.inflight[env.id.Key()] = slot
		}
		params := env.params
		switch {
		case s.tickets:
			s.inbound[slot] = &inboundMsg{id: env.id, params: bytes.Clone(env.params), related: related}
			params = strconv.AppendUint(nil, slot, 10)
		case env.kind == kindRequest:
			s.inbound[slot] = &inboundMsg{id: env.id, related: related}
			params = bytes.Clone(params)
		default:
			params = bytes.Clone(params)
		}
		return rpcRequest(method, slot, env.kind == kindNotification, params), nil, nil
	case kindResponse:
		s.mu.Lock()
		defer s.mu.Unlock()
		n, ok := s.outgoing[env.id.Key()]
		if !ok {
			s.log.Debug("transport: dropped a response to an unknown id", "id", env.id.String())
			return nil, nil, nil
		}
		delete(s.outgoing, env.id.Key())
		if s.tickets {
			s.results[n] = reply{result: bytes.Clone(env.result), err: bytes.Clone(env.errObj)}
			return nil, ticketResponse(n, env.errObj != nil), nil
		}
		resp := &jsonrpc2.Response{}
		if err := json.Unmarshal([]byte(env.id.raw), &resp.ID); err != nil {
			return nil, nil, nil // cannot happen: the id is one jsonrpc2 sent
		}
		if env.errObj != nil {
			resp.Error = &jsonrpc2.Error{}
			if err := json.Unmarshal(env.errObj, resp.Error); err != nil {
				resp.Error = &jsonrpc2.Error{Code: CodeInternalError, Message: "peer sent a malformed error object"}
			}
			return nil, resp, nil
		}
		result := json.RawMessage(bytes.Clone(env.result))
		resp.Result = &result
		return nil, resp, nil
	}
	return nil, nil, nil
}

// ticketResult is the result jsonrpc2 sees in tickets mode: the real one
// waits in s.results. jsonrpc2 only reads it.
var ticketResult = json.RawMessage("0")

// ticketResponse is the stand-in response jsonrpc2 sees in tickets mode,
// telling only whether the call failed.
func ticketResponse(n uint64, isErr bool) *jsonrpc2.Response {
	r := &jsonrpc2.Response{ID: jsonrpc2.ID{Num: n}}
	if isErr {
		r.Error = &jsonrpc2.Error{Code: CodeInternalError, Message: "error response"}
	} else {
		r.Result = &ticketResult
	}
	return r
}

// responseFor is the stand-in response jsonrpc2 sees in tickets mode: the
// result or error itself waits in s.results, so jsonrpc2 only needs to know
// which of the two it is, and never decodes what the peer wrote.
func responseFor(id []byte, errObj json.RawMessage) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	if errObj != nil {
		return append(b, `,"error":{"code":-32603,"message":"error response"}}`...)
	}
	return append(b, `,"result":0}`...)
}

// tooLarge handles a discarded oversized message: a response to one of our
// calls fails that call, any other response is dropped (responses are never
// answered), and anything else is answered with an error under the id
// recovered from its head, or null.
func (s *Stream) tooLarge(tl *TooLargeError) []byte {
	h := recoverID(tl.Head)
	id := h.id
	s.log.Warn("transport: discarded an oversized message", "bytes", tl.Size, "limit", tl.Limit, "id", id.String())
	if h.response && !h.request {
		if id.IsZero() {
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		n, ours := s.outgoing[id.Key()]
		if !ours {
			return nil
		}
		delete(s.outgoing, id.Key())
		errObj := appendErrorObject(nil, CodeInternalError, "response too large: "+tl.Error())
		if s.tickets {
			s.results[n] = reply{err: errObj}
			return responseFor(strconv.AppendUint(nil, n, 10), errObj)
		}
		return append(append(append([]byte(`{"jsonrpc":"2.0","id":`), id.raw...), `,"error":`...), append(errObj, '}')...)
	}
	_ = s.writeRaw(appendErrorResponse(nil, id, CodeInvalidRequest, "invalid request: "+tl.Error()))
	return nil
}

// WriteObject implements jsonrpc2.ObjectStream: it restores the peer's ids
// (and, in tickets mode, the payloads) in what jsonrpc2 sends.
func (s *Stream) WriteObject(v any) error {
	m, err := splitOutgoing(v)
	if err != nil {
		return err
	}
	out := make([]byte, 0, 128)
	out = append(out, `{"jsonrpc":"2.0"`...)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	var sent string // key of our request id, forgotten if the write fails
	var about *ID   // the peer's request the message is about, if known
	if m.isRequest {
		var n uint64 // our request's id number
		switch {
		case m.hasNum:
			id := IntID(m.num)
			n = m.num
			s.outgoing[id.Key()] = m.num
			sent = id.Key()
			out = append(append(out, `,"id":`...), id.raw...)
		case m.id != nil:
			id, err := ParseID(m.id)
			if err != nil {
				s.mu.Unlock()
				return fmt.Errorf("transport: jsonrpc2 wrote request id %s: %w", m.id, err)
			}
			n, _ = strconv.ParseUint(id.raw, 10, 64)
			s.outgoing[id.Key()] = n
			sent = id.Key()
			out = append(append(out, `,"id":`...), m.id...)
		}
		out = append(out, `,"method":`...)
		if m.req != nil {
			out = appendJSONString(out, m.req.Method)
		} else {
			out = append(out, m.method...)
		}
		if m.params != nil {
			about = s.aboutOf(m.params)
			out = append(append(out, `,"params":`...), s.payload(m.params)...)
		} else if sent != "" && len(s.about) > 0 {
			// A call without params (roots/list) has no ticket: what it
			// is about was stashed under its id, which is the ticket
			// it would have had (Conn.start).
			about = s.takeAbout(n)
		}
	} else {
		slot := m.num
		var err error
		if !m.hasNum {
			slot, err = strconv.ParseUint(string(m.id), 10, 64)
		}
		in := s.inbound[slot]
		if err != nil || in == nil || in.id.IsZero() {
			if m.errObj == nil {
				s.payload(m.result) // discard the payload stashed for it
			}
			s.mu.Unlock()
			s.log.Debug("transport: dropped a reply to a request already answered or released", "slot", slot, "id", string(m.id))
			return nil
		}
		delete(s.inbound, slot)
		s.forget(in.id.Key())
		out = append(append(out, `,"id":`...), in.id.raw...)
		if m.errObj != nil {
			out = append(append(out, `,"error":`...), m.errObj...)
		} else {
			out = append(append(out, `,"result":`...), s.payload(m.result)...)
		}
		if grp := s.batchOf[slot]; grp != nil {
			arr := s.batchDone(slot, grp, append(out, '}'))
			s.mu.Unlock()
			if arr == nil {
				return nil // the batch waits for its other responses
			}
			return s.writeRaw(arr)
		}
	}
	s.mu.Unlock()
	err = s.writeAbout(append(out, '}'), about)
	if err != nil && sent != "" {
		s.mu.Lock()
		delete(s.outgoing, sent)
		s.mu.Unlock()
	}
	return err
}

// payload resolves a ticket to the payload it stands for (tickets mode).
// s.mu is held.
func (s *Stream) payload(v json.RawMessage) json.RawMessage {
	if !s.tickets {
		return v
	}
	t, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return v
	}
	p, ok := s.payloads[t]
	if !ok {
		return json.RawMessage("null")
	}
	delete(s.payloads, t)
	return p
}

// aboutOf takes what the message of ticket v is about (stash). s.mu is
// held.
func (s *Stream) aboutOf(v json.RawMessage) *ID {
	if len(s.about) == 0 {
		return nil
	}
	t, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return nil
	}
	return s.takeAbout(t)
}

// takeAbout takes what the message of ticket t is about. s.mu is held.
func (s *Stream) takeAbout(t uint64) *ID {
	id, ok := s.about[t]
	if !ok {
		return nil
	}
	delete(s.about, t)
	return &id
}

// writeRaw writes one complete message.
func (s *Stream) writeRaw(msg []byte) error { return s.writeAbout(msg, nil) }

// writeAbout writes one complete message, which is about the peer's
// request about if that is not nil: a RelatedWriter is told.
func (s *Stream) writeAbout(msg []byte, about *ID) error {
	if jsonscan.HasLineBreak(msg) {
		// Only insignificant white space can hold a raw line break in valid
		// JSON, so compacting keeps the message and restores one per line.
		var c bytes.Buffer
		if err := json.Compact(&c, msg); err != nil {
			return fmt.Errorf("transport: refusing to send invalid JSON: %w", err)
		}
		msg = c.Bytes()
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.wd.failed(); err != nil {
		return err
	}
	s.wd.start()
	var err error
	if rw, ok := s.f.(RelatedWriter); ok && about != nil {
		err = rw.WriteFrameRelated(msg, *about)
	} else {
		err = s.f.WriteFrame(msg)
	}
	s.wd.stop()
	if werr := s.wd.failed(); err != nil && werr != nil {
		return werr
	}
	return err
}

// failWrite ends a write that overran the write timeout: it closes the
// medium, which is what ends a write blocked in the poller, and tells the
// Conn on the stream, whose read loop may not end by itself (a child
// process's stdout stays open after its stdin is closed).
func (s *Stream) failWrite(err error) {
	s.log.Warn("transport: the peer stopped reading; closing the connection", "err", err)
	_ = s.f.Close()
	s.mu.Lock()
	hook := s.onWriteFail
	s.mu.Unlock()
	if hook != nil {
		hook(err)
	}
}

// InputEnded is closed when the stream's input has ended: the peer closed
// its side (EOF) or reading failed. Requests read before may still be
// answered (see StreamOptions.DrainTimeout), but nothing more will be read,
// not even a cancellation: a handler that waits for the peer to end it
// (a subscription) should end now.
func (s *Stream) InputEnded() <-chan struct{} { return s.inputEnded }

// drain waits, after the input ended, until every request read so far has
// been answered or released, the drain timeout passes, or the stream is
// closed.
func (s *Stream) drain() {
	s.mu.Lock()
	if s.drainTimeout < 0 || s.closed || len(s.inflight) == 0 {
		s.mu.Unlock()
		return
	}
	s.idle = make(chan struct{})
	idle := s.idle
	s.mu.Unlock()
	t := time.NewTimer(s.drainTimeout)
	defer t.Stop()
	select {
	case <-idle:
	case <-s.done:
	case <-t.C:
		s.log.Warn("transport: input ended with requests unanswered; giving up on them", "after", s.drainTimeout)
	}
}

// forget removes an answered or released request from inflight. s.mu is
// held.
func (s *Stream) forget(key string) {
	delete(s.inflight, key)
	if s.idle != nil && len(s.inflight) == 0 {
		close(s.idle)
		s.idle = nil
	}
}

// readErr returns the error that ended reading, if it has.
func (s *Stream) readErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rerr
}

func (s *Stream) popInjected() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.injected) == 0 {
		return nil
	}
	msg := s.injected[0]
	s.injected = s.injected[1:]
	return msg
}

// Close implements jsonrpc2.ObjectStream.
func (s *Stream) Close() error {
	s.mu.Lock()
	if !s.closed {
		close(s.done)
	}
	s.closed = true
	clear(s.inbound)
	clear(s.inflight)
	clear(s.batchOf)
	clear(s.outgoing)
	clear(s.payloads)
	clear(s.about)
	clear(s.results)
	s.injected = nil
	s.mu.Unlock()
	s.wd.close()
	s.log.close()
	return s.f.Close()
}

func appendErrorObject(b []byte, code int64, message string) []byte {
	msg, _ := json.Marshal(message)
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(append(b, `,"message":`...), msg...)
	return append(b, '}')
}

// Tickets mode: used by Conn, never by plain jsonrpc2 users.

func (s *Stream) enableTickets() {
	s.mu.Lock()
	s.tickets = true
	s.mu.Unlock()
}

// stash keeps the payload of ticket t for WriteObject. about, if not nil,
// is the peer's request the message is about; it is kept only for a
// framer that can use it (RelatedWriter). p is nil for a call without
// params, whose id is t: only what it is about is kept.
func (s *Stream) stash(t uint64, p json.RawMessage, about *ID) {
	s.mu.Lock()
	if p != nil {
		s.payloads[t] = p
	}
	if about != nil {
		if _, ok := s.f.(RelatedWriter); ok {
			if s.about == nil {
				s.about = map[uint64]ID{}
			}
			s.about[t] = *about
		}
	}
	s.mu.Unlock()
}

func (s *Stream) unstash(t uint64) {
	s.mu.Lock()
	delete(s.payloads, t)
	delete(s.about, t)
	s.mu.Unlock()
}

// takeInbound returns an incoming message's id, params and related call
// (RelatedFramer). A request stays registered until it is replied to or
// released.
func (s *Stream) takeInbound(slot uint64) (ID, json.RawMessage, context.Context, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.inbound[slot]
	if !ok {
		return ID{}, nil, nil, false
	}
	p, related := in.params, in.related
	in.params, in.related = nil, nil
	if in.id.IsZero() {
		delete(s.inbound, slot)
	}
	return in.id, p, related, true
}

// release forgets an incoming request that will not be answered.
func (s *Stream) release(slot uint64) {
	s.mu.Lock()
	var arr []byte
	if in, ok := s.inbound[slot]; ok {
		s.forget(in.id.Key())
		delete(s.inbound, slot)
		if grp := s.batchOf[slot]; grp != nil {
			arr = s.batchDone(slot, grp, nil)
		}
	}
	s.mu.Unlock()
	if arr != nil {
		_ = s.writeRaw(arr)
	}
}

// takeResult returns the payload of the response to our request n.
func (s *Stream) takeResult(n uint64) (reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[n]
	delete(s.results, n)
	return r, ok
}

// abandon forgets our request n after its caller stopped waiting. jsonrpc2
// keeps a call in its pending map until a response comes, and a peer that
// honours cancellation never sends one, so the stream feeds jsonrpc2 a
// stand-in response on its next read. A late real response is dropped as
// one to an unknown id.
func (s *Stream) abandon(n uint64) {
	key := IntID(n).Key()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.results, n)
	if _, ok := s.outgoing[key]; !ok {
		return // answered already: jsonrpc2 has let go of it
	}
	delete(s.outgoing, key)
	s.injected = append(s.injected, responseFor(strconv.AppendUint(nil, n, 10), appendErrorObject(nil, CodeInternalError, "abandoned")))
}
