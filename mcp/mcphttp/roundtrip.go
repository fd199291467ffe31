package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// roundTrip POSTs a request and feeds back its response, resuming an
// interrupted SSE stream with Last-Event-ID where the session allows.
func (f *Framer) roundTrip(ctx context.Context, m *outMsg, stateless bool) {
	resp, err := f.do(ctx, http.MethodPost, m, stateless, "")
	if err != nil {
		if ctx.Err() == nil {
			if m.sink != nil && m.sink.answer == nil {
				m.sink.err = err
			}
			f.fail(m, "POST failed: "+err.Error())
		}
		return
	}
	var answered bool // by the POST's own SSE stream
	defer func() { f.settle(resp, m, answered) }()
	sid := resp.Request.Header.Get(HeaderSessionID)
	switch {
	case resp.StatusCode == http.StatusNotFound && sid != "":
		f.expire(sid, http.MethodPost)
		return
	case resp.StatusCode == http.StatusAccepted && stateless && m.isRequest():
		// A stateless request has no other stream its response could
		// come on: waiting would last until the call's deadline.
		f.fail(m, "the server accepted the request (202 Accepted) without answering it, and a stateless request has no other stream to be answered on")
		return
	case resp.StatusCode == http.StatusAccepted:
		// The server will answer elsewhere (its GET stream).
		if m.sink != nil {
			f.awaitElsewhere(ctx, m.sink)
		}
		return
	case resp.StatusCode/100 != 2:
		f.failHTTP(m, resp)
		return
	}
	if m.method == "initialize" {
		if id := resp.Header.Get(HeaderSessionID); id != "" {
			if !validSessionID(id) {
				// Not kept: it would go back with every request.
				f.fail(m, "the server's Mcp-Session-Id is not 1 to "+strconv.Itoa(maxSessionIDLen)+" visible ASCII characters (0x21 to 0x7E)")
				return
			}
			f.mu.Lock()
			f.sessionID = id
			f.mu.Unlock()
		}
	}
	if !isEventStream(resp) {
		b, err := readLimited(resp.Body, resp.ContentLength, f.max)
		switch {
		case err != nil:
			f.fail(m, "reading the response: "+err.Error())
		case len(b) > f.max:
			tl := &transport.TooLargeError{Size: int64(len(b)), Limit: f.max, Head: head(b)}
			if m.sink != nil {
				// The body of a POST is its response.
				f.failCode(m, transport.CodeInternalError, "response too large: "+tl.Error(), nil)
				return
			}
			f.push(inFrame{err: tl})
		case m.sink != nil:
			// The body of a POST is its response, whatever it holds: the
			// caller checks it, and fails the call at once if it is not.
			// Only the responses the framer learns from are read here.
			if learns(m.method) {
				b, _ = f.learn(b, m)
			}
			m.sink.answer = b
		default:
			f.incoming(b, m)
		}
		return
	}
	answered, last := f.readEvents(ctx, resp.Body, m)
	for attempt := 0; !answered && attempt < f.retries; attempt++ {
		if ctx.Err() != nil || last == "" || f.SessionID() == "" {
			break
		}
		if !f.wait(ctx) {
			return
		}
		r, err := f.do(ctx, http.MethodGet, nil, false, last)
		if err != nil {
			continue
		}
		if r.StatusCode == http.StatusNotFound {
			drain(r)
			f.expire(r.Request.Header.Get(HeaderSessionID), http.MethodGet)
			return
		}
		if r.StatusCode/100 != 2 {
			// Such as 410: the server no longer holds the stream. Its
			// reason is the call's error.
			f.failHTTP(m, r)
			drain(r)
			return
		}
		if !isEventStream(r) {
			drain(r)
			break
		}
		var a bool
		a, last = f.readEvents(ctx, r.Body, m)
		answered = answered || a
		f.settle(r, m, a)
	}
	if !answered && ctx.Err() == nil {
		f.fail(m, "the server's event stream ended before the response")
	}
}

// maxSessionIDLen bounds the session id a client keeps: it goes back with
// every request. Ids are short (the Handler's are 32 hex digits; a signed
// token a few hundred bytes).
const maxSessionIDLen = 4 << 10

// validSessionID reports whether a server's session id is what the
// transport allows, visible ASCII (0x21 to 0x7E), and short enough to be
// sent back with every request. Anything else net/http refuses to send
// (control characters), costs every request its length, or reorders the
// text of the errors that name it (a right-to-left override).
func validSessionID(id string) bool {
	if len(id) > maxSessionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// wait sleeps for the server's retry hint, or the default delay.
func (f *Framer) wait(ctx context.Context) bool {
	f.mu.Lock()
	d := f.retryHint
	f.mu.Unlock()
	if d <= 0 {
		d = f.delay
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// readEvents feeds the message events of an SSE body back as frames. It
// reports whether the response to m came (m nil: never) and the id of the
// last event, from which the stream can be resumed.
func (f *Framer) readEvents(ctx context.Context, body io.Reader, m *outMsg) (answered bool, last string) {
	r := newEventReader(body, f.max)
	for {
		ev, err := r.next()
		if err != nil {
			return answered, r.lastID
		}
		if ev.retry > 0 {
			f.mu.Lock()
			f.retryHint = max(ev.retry, MinRetryDelay)
			f.mu.Unlock()
		}
		if ev.tooLarge != nil {
			if m != nil && m.sink != nil && answersHead(ev.tooLarge.Head, m.id) {
				f.failCode(m, transport.CodeInternalError, "response too large: "+ev.tooLarge.Error(), nil)
				return true, r.lastID
			}
			f.pushFor(m, inFrame{err: ev.tooLarge})
			continue
		}
		if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
			continue
		}
		if f.incoming(ev.data, m) {
			answered = true
			if ctx.Err() == nil {
				return true, r.lastID // a request's stream ends with its response
			}
		}
	}
}

// incoming feeds one message back, learning the negotiated version from
// an initialize response on the way. It reports whether msg is the
// response to m.
func (f *Framer) incoming(msg []byte, m *outMsg) bool {
	msg, env, isResp := f.learnEnv(msg, m)
	switch {
	case isResp && m.sink != nil:
		m.sink.answer, m.sink.madeUp = msg, false
		return true
	case !isResp && !env.hasMethod && f.deliver(msg, env):
		// The response to a RoundTrip waiting elsewhere.
		return false
	}
	f.pushFor(m, inFrame{msg: msg})
	return isResp
}

// learns reports whether learnEnv learns anything from the response to
// a request of method: a caller that needs only the message can skip
// reading other responses.
func learns(method string) bool { return method == "initialize" || method == "tools/list" }

// learn is learnEnv for a caller that needs only the message.
func (f *Framer) learn(msg []byte, m *outMsg) ([]byte, bool) {
	msg, _, isResp := f.learnEnv(msg, m)
	return msg, isResp
}

// learnEnv reads an incoming message, learning the negotiated version from
// an initialize response (and starting the GET stream) and the tools'
// parameter headers from a tools/list response. It reports whether msg is
// the response to m.
func (f *Framer) learnEnv(msg []byte, m *outMsg) ([]byte, inEnvelope, bool) {
	env := peekIn(msg)
	isResp := false
	if m != nil && !env.hasMethod {
		if id, err := transport.ParseID(env.id); err == nil && id.Key() == m.id.Key() {
			isResp = true
		}
	}
	if isResp && m.method == "tools/list" {
		msg = f.learnTools(msg, m.raw)
	}
	if isResp && m.method == "initialize" {
		env.readVersion()
	}
	if isResp && m.method == "initialize" && env.version != "" {
		f.mu.Lock()
		f.version = env.version
		start := f.sessionID != "" && f.listen && !f.listening
		f.listening = f.listening || start
		f.mu.Unlock()
		if start {
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.listenLoop()
			}()
		}
	}
	return msg, env, isResp
}

// listenLoop keeps the GET stream open for the session's life. A server
// without one answers 405, which ends the loop quietly.
func (f *Framer) listenLoop() {
	last, failures := "", 0
	for f.ctx.Err() == nil {
		resp, err := f.do(f.ctx, http.MethodGet, nil, false, last)
		switch {
		case err != nil:
			failures++
		case resp.StatusCode == http.StatusNotFound:
			drain(resp)
			f.expire(resp.Request.Header.Get(HeaderSessionID), http.MethodGet)
			return
		case resp.StatusCode == http.StatusMethodNotAllowed:
			drain(resp)
			return
		case resp.StatusCode/100 != 2 || !isEventStream(resp):
			f.log.Warn("mcphttp: the server refused the GET stream", "status", resp.Status)
			drain(resp)
			return
		default:
			failures = 0
			_, l := f.readEvents(f.ctx, resp.Body, nil)
			if l != "" {
				last = l
			}
			drain(resp)
		}
		if failures > max(f.retries, 0) {
			f.log.Warn("mcphttp: giving up on the GET stream", "err", err)
			return
		}
		if !f.wait(f.ctx) {
			return
		}
	}
}

// fail answers request m with an internal error made up here, so that
// its caller learns at once what the transport could not do.
func (f *Framer) fail(m *outMsg, why string) {
	f.failCode(m, transport.CodeInternalError, "mcphttp: "+why, nil)
}

func (f *Framer) failCode(m *outMsg, code int64, message string, data json.RawMessage) {
	e := &transport.Error{Code: code, Message: message, Data: data}
	errObj, _ := json.Marshal(e)
	b := append([]byte(`{"jsonrpc":"2.0","id":`), m.id.Raw()...)
	b = append(append(append(b, `,"error":`...), errObj...), '}')
	if m.sink != nil {
		if m.sink.answer == nil {
			m.sink.answer, m.sink.madeUp = b, true
		}
		return
	}
	f.push(inFrame{msg: b})
}

// failHTTP answers request m from an HTTP error: with the JSON-RPC error
// the server put in the body, under m's id if the server did not know it
// (a refusal before the body was read has id null).
func (f *Framer) failHTTP(m *outMsg, resp *http.Response) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env struct {
		ID    json.RawMessage  `json:"id"`
		Error *transport.Error `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil && env.Error != nil {
		f.failCode(m, env.Error.Code, env.Error.Message, env.Error.Data)
		return
	}
	f.fail(m, "HTTP "+resp.Status+": "+strings.TrimSpace(string(head(b))))
}

func httpErrorText(resp *http.Response, limit int) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, int64(min(limit, 4096))))
	var env struct {
		Error *transport.Error `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil && env.Error != nil {
		return "HTTP " + resp.Status + ": " + env.Error.Error()
	}
	return "HTTP " + resp.Status
}

func (f *Framer) push(fr inFrame) {
	select {
	case f.in <- fr:
	case <-f.done:
	}
}

// expire ends the connection because the server forgot the session.
func (f *Framer) expire(sid, method string) {
	f.mu.Lock()
	if f.sessionID == sid {
		f.sessionID = ""
	}
	f.mu.Unlock()
	f.shutdown(&SessionExpiredError{SessionID: sid, Method: method}, false)
}

// shutdown ends the framer once: reading returns cause, background
// requests are aborted and, if asked, the session is deleted.
func (f *Framer) shutdown(cause error, deleteSession bool) {
	f.once.Do(func() {
		f.mu.Lock()
		f.cause = cause
		f.closing = true
		sid := f.sessionID
		for _, s := range f.awaiting {
			s.cancel() // RoundTrip's POST
		}
		f.mu.Unlock()
		f.cancel()
		if deleteSession && sid != "" && f.closeWait > 0 {
			// Bounded by CloseTimeout, body included: Close must not
			// wait on a server that holds its DELETE (once waited 5 s).
			ctx, cancel := context.WithTimeout(context.WithoutCancel(f.ctx), f.closeWait)
			if resp, err := f.do(ctx, http.MethodDelete, nil, false, ""); err == nil {
				drain(resp)
			}
			cancel()
		}
		close(f.done)
	})
}

// Close implements transport.Framer: it deletes the session (as the transport asks
// of a client that is done with it), waiting for the DELETE at most
// ClientOptions.CloseTimeout, aborts what is in flight and waits for the
// framer's goroutines.
func (f *Framer) Close() error {
	f.shutdown(io.EOF, true)
	f.wg.Wait()
	return nil
}

func isEventStream(resp *http.Response) bool { return isSSE(resp.Header.Get("Content-Type")) }

// settle ends a response body once read. The body of a request's SSE
// stream that carried the response is drained only for a moment, for the
// connection's reuse where the server ends the stream at once, as it
// should: a RoundTrip runs on its caller's goroutine, and a server that
// holds the stream open after the response must not hold the call.
func (f *Framer) settle(resp *http.Response, m *outMsg, answered bool) {
	if answered && m.sink != nil && isEventStream(resp) {
		t := time.AfterFunc(lingerAfterAnswer, m.sink.cancel)
		defer t.Stop()
	}
	drain(resp)
}

// lingerAfterAnswer is how long settle waits for the end of a stream
// after its response.
const lingerAfterAnswer = 100 * time.Millisecond

// drain reads a little of what is left of a body, so that the connection
// can be reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
}

// preallocLimit bounds the buffer readLimited makes before a body's bytes
// arrive: a server that declares a large Content-Length and sends nothing
// must not make every call in flight hold that much memory.
const preallocLimit = 64 << 10

// readLimited reads a response body of up to max bytes, and one more if
// there are more. A small body that declares its length within max is
// read into a buffer of that size at once, instead of one grown as it
// comes; a larger one grows with what actually arrives.
func readLimited(r io.Reader, length int64, max int) ([]byte, error) {
	if length >= 0 && length <= int64(max) && length <= preallocLimit {
		b := make([]byte, length)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	return io.ReadAll(io.LimitReader(r, int64(max)+1))
}

func head(b []byte) []byte {
	if len(b) > 4096 {
		return b[:4096]
	}
	return b
}
