package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/winbridge/winbridge/internal/shardset"
	"github.com/winbridge/winbridge/mcp"
)

// post serves a POSTed message: checks, then routing by era.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if n := h.posts.Add(1); h.opts.MaxInFlight > 0 && n > int64(h.opts.MaxInFlight) {
		h.posts.Add(-1)
		e := httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError,
			"busy: "+strconv.Itoa(h.opts.MaxInFlight)+" requests are being served (MaxInFlight); retry later")
		e.retryAfter = time.Second
		// The body is not read: the connection closes after the answer.
		e.close = closes(r)
		writeHTTPError(w, e)
		return
	}
	defer h.posts.Add(-1)
	if owner, e := h.admitSubject(r); e != nil {
		writeHTTPError(w, e)
		return
	} else if owner != "" {
		defer h.flights.add(owner, -1)
	}
	if !accepts(r, "application/json") || !accepts(r, "text/event-stream") {
		writeHTTPError(w, httpErr(http.StatusNotAcceptable, mcp.CodeInvalidRequest, "not acceptable: Accept must list application/json and text/event-stream"))
		return
	}
	if !isJSON(r) {
		writeHTTPError(w, httpErr(http.StatusUnsupportedMediaType, mcp.CodeInvalidRequest, "unsupported media type: Content-Type must be application/json (in UTF-8)"))
		return
	}
	if !unencoded(r) {
		// RFC 7694: the codings the server takes.
		w.Header().Set("Accept-Encoding", "identity")
		writeHTTPError(w, httpErr(http.StatusUnsupportedMediaType, mcp.CodeInvalidRequest, "unsupported media type: the body must have no Content-Encoding"))
		return
	}
	body, e := h.readBody(w, r)
	if e != nil {
		writeHTTPError(w, e)
		return
	}
	m, e := parseMessage(body)
	if e != nil {
		writeHTTPError(w, e)
		return
	}
	hv, _ := headerValue(r, HeaderProtocolVersion)
	if hv != "" {
		if err := h.srv.CheckVersion(hv); err != nil {
			writeHTTPError(w, badVersion(err).withID(m))
			return
		}
	}
	mv, _ := m.metaString(mcp.MetaProtocolVersion)
	if mcp.IsStateless(hv) || mcp.IsStateless(mv) {
		h.postStateless(w, r, m, hv)
		return
	}
	if m.method == "initialize" && m.isRequest() {
		h.initialize(w, r, m)
		return
	}
	s, e := h.enterLookup(r, m)
	if e != nil {
		writeHTTPError(w, e)
		return
	}
	defer s.leave()
	// A request that changes the session's state takes its id before it
	// is recorded: one refused here (its id in use by a request in
	// progress) must not reach the other replicas through the record.
	var p *pendingCall
	if h.opts.Sessions != nil && stateMethods[m.method] && m.isRequest() {
		if p, e = s.expect(m, h.wantsSSE(r, m)); e != nil {
			writeHTTPError(w, e)
			return
		}
	}
	recorded, e := s.record(r.Context(), m)
	if e != nil {
		if p != nil {
			s.unexpect(m, p)
		}
		writeHTTPError(w, e)
		return
	}
	var settle func(inEffect bool)
	if recorded != nil {
		// Catch-ups wait until the change takes effect here, or is
		// refused as busy (exchange settles it as its handler returns),
		// or the request ends without it.
		var once sync.Once
		settle = func(inEffect bool) { once.Do(func() { recorded(inEffect) }) }
		defer settle(true)
	}
	if h.relay(r.Context(), s, m) {
		writeAccepted(w)
		return
	}
	h.exchange(w, r, s, m, p, settle)
}

// bodyChunk is the first step in which a body reserves MaxBodyMemory as
// it arrives; each further step is as large as what the body holds.
const bodyChunk = 64 << 10

// readBody reads a POST body within MaxBodyBytes, MaxBodyMemory and the
// read deadline of BodyTimeout, then lifts the deadline: what follows
// (a long call, an SSE stream) is not bounded by it.
//
// A body reserves memory as it arrives, whether or not it declares its
// length: a Content-Length is only the client's word, and a client that
// declared the largest body and sent nothing would otherwise hold the
// whole budget for BodyTimeout on one connection, while every other POST
// waited BodyWait for room and got 503. The buffer grows with what is
// reserved (to the Content-Length at most), doubling, so that a large
// body is copied a few times, not once per step.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *httpError) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return nil, h.tooLarge()
	}
	// The most the buffer grows to: the declared length, or one byte past
	// the limit, which MaxBytesReader then refuses.
	most := limit + 1
	if r.ContentLength >= 0 {
		most = r.ContentLength
	}
	// The BodyWait timer starts when the body first has to wait for room:
	// most bodies never do, and need no timer.
	var wait *time.Timer
	var reserved int64
	conn := h.bodies.enter(connOf(r))
	defer func() {
		if wait != nil {
			wait.Stop()
		}
		h.bodies.leave(conn, reserved)
		h.bodies.release(reserved)
	}()
	reserve := func(n int64) *httpError {
		if h.bodies.tryAcquire(n, reserved, conn) {
			reserved += n
			return nil
		}
		if wait == nil {
			wait = time.NewTimer(h.opts.BodyWait)
		}
		if !h.bodies.acquire(r.Context(), n, reserved, wait.C, conn) {
			e := httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "server busy: too many request bodies are being read at once; retry")
			e.retryAfter, e.close = time.Second, closes(r)
			return e
		}
		reserved += n
		return nil
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if r.ContentLength >= 0 && int64(len(buf)) == most {
				// net/http delivers exactly Content-Length bytes or an
				// error.
				break
			}
			n := min(max(int64(len(buf)), bodyChunk), most-int64(len(buf)))
			if e := reserve(n); e != nil {
				return nil, e
			}
			grown := make([]byte, len(buf), int64(len(buf))+n)
			copy(grown, buf)
			buf = grown
		}
		k, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			if r.ContentLength >= 0 && int64(len(buf)) < most {
				return nil, h.readError(r, io.ErrUnexpectedEOF)
			}
			break
		}
		if err != nil {
			return nil, h.readError(r, err)
		}
	}
	if dw, ok := w.(*deadlineWriter); ok {
		if !dw.bodyRead() {
			return nil, h.readError(r, os.ErrDeadlineExceeded)
		}
	} else {
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	return buf, nil
}

// connOf names the HTTP/2 connection r came over, whose bodies share
// its flow-control window (connBodies), or is "" for HTTP/1.x, where a
// connection reads one body at a time. The peer's address and the
// local one name the connection among those open.
func connOf(r *http.Request) string {
	if r.ProtoMajor < 2 {
		return ""
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return r.RemoteAddr
	}
	return r.RemoteAddr + " " + local.String()
}

func (h *Handler) tooLarge() *httpError {
	return httpErr(http.StatusRequestEntityTooLarge, mcp.CodeInvalidRequest, "request body exceeds "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes")
}

func (h *Handler) readError(r *http.Request, err error) *httpError {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return h.tooLarge()
	case errors.Is(err, os.ErrDeadlineExceeded):
		e := httpErr(http.StatusRequestTimeout, mcp.CodeInvalidRequest, "request timeout: the body did not arrive within "+h.opts.BodyTimeout.String())
		e.close = closes(r)
		return e
	}
	e := httpErr(http.StatusBadRequest, mcp.CodeParseError, "parse error: reading the body: "+err.Error())
	e.close = closes(r)
	return e
}

// lookup finds the legacy session a request names and checks its
// protocol version header.
func (h *Handler) lookup(r *http.Request, m *rpcMessage) (*httpSession, *httpError) {
	sid, _ := headerValue(r, HeaderSessionID)
	if sid == "" {
		return nil, httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest,
			"bad request: missing "+HeaderSessionID+" header; send initialize first, or use protocol version "+mcp.LatestVersion+" with its _meta").withID(m)
	}
	s, e := h.shared(r, sid, m)
	if e != nil {
		return nil, e
	}
	if s == nil {
		return nil, errSessionGone().withID(m)
	}
	if !s.sameIdentity(r) {
		return nil, errForbiddenIdentity().withID(m)
	}
	hv, _ := headerValue(r, HeaderProtocolVersion)
	v := s.ss.ProtocolVersion()
	switch {
	case hv == "" && !before(v, mcp.Version20250618):
		return nil, httpErr(http.StatusBadRequest, mcp.CodeHeaderMismatch, "bad request: missing "+HeaderProtocolVersion+" header (the session negotiated "+v+")").withID(m)
	case hv != "" && hv != v:
		if err := h.srv.CheckVersion(hv); err != nil {
			return nil, badVersion(err).withID(m)
		}
		return nil, httpErr(http.StatusBadRequest, mcp.CodeHeaderMismatch, "bad request: "+HeaderProtocolVersion+" "+hv+" does not match the session's "+v).withID(m)
	}
	return s, nil
}

// enterLookup finds the legacy session a request names, as lookup, and
// enters it.
func (h *Handler) enterLookup(r *http.Request, m *rpcMessage) (*httpSession, *httpError) {
	for try := 0; ; try++ {
		s, e := h.lookup(r, m)
		if e != nil {
			return nil, e
		}
		if s.enter() {
			return s, nil
		}
		if h.opts.Sessions == nil || try > 0 {
			return nil, errSessionGone().withID(m)
		}
		// With a SessionStore this was a copy, which idled out as the
		// request came in; the session may live on in the store, and
		// lookup then serves it with a fresh copy.
	}
}

// initialize opens a legacy session. The session is registered before the
// answer is sent, since the client's next POST may follow at once; a
// failed initialize closes it again and names no session.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, m *rpcMessage) {
	s := h.newSession(newSessionID())
	s.bindAuth(r)
	if e := h.register(s, true); e != nil {
		s.end()
		writeHTTPError(w, e.withID(m))
		return
	}
	s.enter() // a session of its own: no one else can have ended it
	defer s.leave()
	p, e := s.expect(m, false)
	if e != nil {
		s.end()
		writeHTTPError(w, e)
		return
	}
	if !s.deliver(r.Context(), m.raw) {
		s.end()
		return
	}
	select {
	case resp := <-p.resp:
		var out struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(resp, &out) == nil && out.Error != nil {
			s.end()
		} else if e := s.keep(r.Context(), m.raw); e != nil {
			s.end()
			writeHTTPError(w, e.withID(m))
			return
		} else {
			w.Header().Set(HeaderSessionID, s.id)
		}
		writeJSON(w, http.StatusOK, resp)
	case <-r.Context().Done():
		s.end()
	case <-s.doneChan():
		writeHTTPError(w, httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "session closed").withID(m))
	}
}

// postStateless serves a 2026-07-28 message on a session of its own,
// after checking that its headers agree with its body.
func (h *Handler) postStateless(w http.ResponseWriter, r *http.Request, m *rpcMessage, hv string) {
	if e := checkStateless(r, m, hv); e != nil {
		writeHTTPError(w, e)
		return
	}
	if e := h.checkParamHeaders(r, m); e != nil {
		writeHTTPError(w, e)
		return
	}
	if !m.isRequest() {
		// Notifications have no session to reach: cancellation is the
		// client closing the request's connection, which ends its session.
		writeAccepted(w)
		return
	}
	s := h.newSession("")
	defer h.endLater(s)
	s.bindAuth(r)
	h.exchange(w, r, s, m, nil, nil)
}

// checkStateless checks a 2026-07-28 message's standard headers against
// its body: the server must act on the body, and intermediaries on the
// headers, so the two must say the same.
func checkStateless(r *http.Request, m *rpcMessage, hv string) *httpError {
	mismatch := func(msg string) *httpError {
		return httpErr(http.StatusBadRequest, mcp.CodeHeaderMismatch, "header mismatch: "+msg).withID(m)
	}
	if hv == "" {
		return mismatch("missing " + HeaderProtocolVersion + " header")
	}
	// Intermediaries act on these headers, the server on the body: a
	// header sent twice has no one value to check (a proxy may take the
	// last, or join them), and one wrapped as =?base64?...?= must decode
	// strictly, as Mcp-Param-* values do, or a strict decoder upstream
	// reads another value than the one checked here.
	for _, name := range []string{HeaderProtocolVersion, HeaderMethod, HeaderName} {
		if len(r.Header.Values(name)) > 1 {
			return mismatch("more than one " + name + " header")
		}
	}
	if m.response {
		return httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest, "invalid request: no request of this server awaits a response in "+hv).withID(m)
	}
	mh, ok, valid := strictHeaderValue(r, HeaderMethod)
	switch {
	case !ok:
		return mismatch("missing " + HeaderMethod + " header")
	case !valid:
		return mismatch(HeaderMethod + " holds invalid Base64")
	case mh != m.method:
		return mismatch(HeaderMethod + " " + strconv.Quote(mh) + " does not match method " + strconv.Quote(m.method))
	}
	if name, ok := m.nameValue(); ok {
		nh, present, valid := strictHeaderValue(r, HeaderName)
		switch {
		case !present:
			return mismatch("missing " + HeaderName + " header")
		case !valid:
			return mismatch(HeaderName + " holds invalid Base64")
		case nh != name:
			return mismatch(HeaderName + " " + strconv.Quote(nh) + " does not match " + strconv.Quote(name))
		}
	}
	if !m.isRequest() {
		return nil
	}
	if m.method == "initialize" {
		// Before the _meta checks: an initialize has none, and what it
		// needs to hear is that the method is gone.
		return httpErr(http.StatusNotFound, mcp.CodeMethodNotFound, "Method not found: initialize does not exist in "+hv+"; use server/discover").withID(m)
	}
	var missing []string
	for _, k := range []string{mcp.MetaProtocolVersion, mcp.MetaClientCapabilities} {
		if !m.meta.has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return httpErr(http.StatusBadRequest, mcp.CodeInvalidParams, "invalid params: _meta lacks "+strings.Join(missing, ", ")).withID(m)
	}
	if mv, _ := m.metaString(mcp.MetaProtocolVersion); mv != hv {
		return mismatch(HeaderProtocolVersion + " " + hv + " does not match _meta protocol version " + strconv.Quote(mv))
	}
	return nil
}

// exchange hands a message to a session and answers the POST: 202 for a
// notification or response, the response as JSON, or an SSE stream that
// ends with the response.
//
// Requests and notifications run on this goroutine (ServeDirect), not on
// the session's read loop: HTTP pairs the request with its answer, so
// nothing needs jsonrpc2 to match them. Responses to the server's own
// requests go to the read loop, where jsonrpc2 awaits them. While a
// request with a stream runs, a streamer (see streamer) serves the stream
// from another goroutine once there is something to stream. p is the
// request's pending call if the caller made it (expect), else nil.
// settle, if not nil, is called once the message has taken effect (its
// handler returned), or was refused as busy, before the answer is
// written: a slow client does not hold off the session's catch-ups (see
// httpSession.record).
func (h *Handler) exchange(w http.ResponseWriter, r *http.Request, s *httpSession, m *rpcMessage, p *pendingCall, settle func(inEffect bool)) {
	if m.response {
		if !s.deliver(r.Context(), m.raw) {
			writeHTTPError(w, httpErr(http.StatusNotFound, mcp.CodeInvalidRequest, "session not found: it ended"))
			return
		}
		writeAccepted(w)
		return
	}
	if !m.isRequest() {
		// A malformed notification cannot be answered: what the session
		// would answer is dropped, as before.
		select {
		case <-s.doneChan():
			writeHTTPError(w, httpErr(http.StatusNotFound, mcp.CodeInvalidRequest, "session not found: it ended"))
			return
		default:
		}
		hctx, cancel := s.handlerContext(r, m)
		s.ss.ServeDirect(hctx, m.raw, func([]byte) {})
		cancel()
		if settle != nil {
			settle(true)
		}
		writeAccepted(w)
		return
	}
	if p == nil {
		var e *httpError
		if p, e = s.expect(m, h.wantsSSE(r, m)); e != nil {
			writeHTTPError(w, e)
			return
		}
	}
	if p.stream != nil {
		// The stream was created owned by this POST; once it returns,
		// the stream is retained for resumption within the session's
		// limits, or dropped when it was written to its end.
		defer p.stream.detach()
	}
	var st *streamer
	if p.stream != nil {
		st = h.newStreamer(w, r, s, m, p)
	}
	key := m.id.Key()
	var (
		ref shardset.Ref // a stateless session's in h.stateless
		lw  *lateWatch   // a legacy POST's watch
	)
	if s.id == "" {
		// Shutdown ends stateless sessions, which it does not know by
		// name, through h.stateless: that cancels the request's handler.
		var ok bool
		if ref, ok = h.stateless.Add(s); !ok {
			s.end() // Shutdown has begun
		}
	} else {
		// A client that walks away from a legacy request leaves it
		// running (it may still cancel it), but the POST no longer counts
		// as served: neither for MaxInFlight nor to keep the session from
		// idling out, as when the POST returned while a worker ran the
		// request; once the session ends, it counts for MaxInFlight
		// again until the handler returns (adrift.go).
		// Watched only once the request has run a while (watchLate); the
		// streamer starts on the same timer, quickAnswer being watchAfter.
		lw = h.watchPost(r, s, st, p.stream)
	}
	// Shutdown waits for the handler as for any other, within the
	// server's ShutdownTimeout, not as for an HTTP request.
	h.addBusy(-1)
	busy := false
	hctx, cancel := s.handlerContext(r, m)
	s.ss.ServeDirect(hctx, m.raw, func(resp []byte) {
		busy = settle != nil && refusedBusy(resp)
		s.answer(key, resp)
	})
	cancel()
	if settle != nil {
		settle(!busy)
	}
	h.addBusy(1)
	if s.id == "" {
		h.stateless.Remove(s, ref)
	} else if !lw.release() {
		// abandoned ran, or runs: take back what it gave up, which post
		// gives back as it returns.
		s.takeBack(h.counted(r))
		s.enter() // if it idled out meanwhile, the session's end answers
	}
	if st != nil && st.finish() {
		return // the streamer answered
	}
	h.answer(w, r, s, m, p, quickAnswer)
}

// abandoned lets go of a legacy session's request whose client went away
// while it ran: its stream, once the streamer is done with it, is left for
// resumption, and the POST stops counting as one in progress, for
// MaxInFlight and against owner's MaxInFlightPerSubject, while its session
// lives (letGo).
func (h *Handler) abandoned(s *httpSession, st *streamer, es *eventStream, owner string) {
	if st != nil && !st.abandon() {
		es.detach()
	}
	s.leave()
	s.letGo(owner)
	if hook := h.testHookAbandoned.Load(); hook != nil {
		(*hook)()
	}
}

// handlerContext is the context a request's handler runs in, and the
// function that releases it. A stateless request's session is the
// request, so the client going away cancels it; in a legacy session it
// does not (the client may send notifications/cancelled), and the
// session's end does.
//
// A subscriptions/listen behind RequireAuth is ended listenEndMargin
// (or a quarter of the token's remaining life, if less) before its token
// expires: RequireAuth closes the stream at the expiry,
// and ended by the server the request is answered with its final result
// while the token still holds, which tells the client the subscription
// ended (rather than the connection failed) and that it may listen
// again.
func (s *httpSession) handlerContext(r *http.Request, m *rpcMessage) (context.Context, context.CancelFunc) {
	if s.id == "" {
		if a := AuthFromContext(r.Context()); a != nil && !a.Expiry.IsZero() && m.method == "subscriptions/listen" {
			margin := min(listenEndMargin, time.Until(a.Expiry)/4)
			return context.WithDeadline(r.Context(), a.Expiry.Add(-margin))
		}
		return r.Context(), func() {}
	}
	// A legacy request outlives its POST once running (the client may
	// still cancel it), but one still waiting for an in-flight slot is
	// dropped with its POST, as when it queued on the session's stream.
	return mcp.DetachAfterAdmit(r.Context()), func() {}
}

// listenEndMargin is how long before its token's expiry a
// subscriptions/listen is ended, for its final result to be written.
const listenEndMargin = time.Second

// answer writes what a request produced: the response as JSON, or an SSE
// stream of its messages that ends with the response. A legacy session's
// streamed request whose response is not there yet waits up to quick for
// it before it starts the stream.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, s *httpSession, m *rpcMessage, p *pendingCall, quick time.Duration) {
	if p.stream != nil && s.id == "" {
		// A stateless request's HTTP status depends on its outcome: an error
		// that comes before anything else (a missing client capability is
		// 400) goes out as JSON with its status; the stream starts only
		// with a message that is not the final response.
		if done := h.answerAlone(w, r, p.stream); done {
			return
		}
	}
	if p.stream != nil && s.id != "" && h.answerIfQuick(w, r, p.stream, quick) {
		s.dropStream(p.stream)
		return
	}
	if p.stream != nil {
		if p.stream.isClosed() {
			// The session closed before the stream started (DELETE,
			// Shutdown): said as for a JSON answer. Answering nothing
			// left net/http an empty 200 to send, a success without a
			// result.
			s.forget(m)
			writeHTTPError(w, httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "session closed before the response").withID(m))
			return
		}
		sw := startSSE(w, s.id)
		if p.stream.id != "" && !before(s.ss.ProtocolVersion(), mcp.Version20251125) {
			if sw.prime(p.stream.eventID(0), h.opts.Retry) != nil {
				p.stream.detach()
				return
			}
		}
		if h.serveStream(r, sw, p.stream, 0) {
			s.dropStream(p.stream)
		}
		return
	}
	select {
	case resp := <-p.resp:
		status := http.StatusOK
		if s.id == "" {
			status = statusOfDirect(resp)
		}
		writeJSON(w, status, resp)
	case <-r.Context().Done():
		// The client went away. In a legacy session that does not cancel
		// the request (the client may send notifications/cancelled);
		// its response is dropped when it comes.
		s.forget(m)
	case <-s.doneChan():
		s.forget(m)
		writeHTTPError(w, httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "session closed before the response").withID(m))
	}
}

// answerAlone waits for the first message of a stateless request's stream.
// If it is the final response, it answers with it as JSON under the status
// it implies and reports true; otherwise the caller streams.
func (h *Handler) answerAlone(w http.ResponseWriter, r *http.Request, es *eventStream) bool {
	for {
		ev, final, some, closed := es.sole()
		switch {
		case final:
			es.markSent(ev.n)
			writeJSON(w, statusOfDirect(ev.data), ev.data)
			return true
		case some || closed:
			return false
		}
		select {
		case <-es.wake:
		case <-r.Context().Done():
			return true
		case <-h.done:
			return false
		}
	}
}

// quickAnswer is how long a session's request that may stream waits for
// its result before it starts the stream.
const quickAnswer = 20 * time.Millisecond

// answerIfQuick answers a session's request with plain JSON when its final
// response is the first thing it produces and comes within quickAnswer,
// and reports whether it did. A stream, with its priming event for
// resumption, costs a fast call more than the call itself; a call that
// sends anything first (progress, a request of its own) or takes longer
// gets the stream, losing at most quickAnswer of resumability.
func (h *Handler) answerIfQuick(w http.ResponseWriter, r *http.Request, es *eventStream, quick time.Duration) bool {
	var deadline <-chan time.Time
	for {
		ev, final, some, closed := es.sole()
		switch {
		case final:
			es.markSent(ev.n)
			writeJSON(w, http.StatusOK, ev.data)
			return true
		case some || closed || quick <= 0:
			return false
		}
		if deadline == nil {
			t := time.NewTimer(quick)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-es.wake:
		case <-deadline:
			return false
		case <-r.Context().Done():
			return false
		case <-h.done:
			return false
		}
	}
}

// wantsSSE decides how to answer a request: as an SSE stream when messages
// may come before the result (a tool call, or any request asking for
// progress) and the client takes streams; as one JSON object otherwise,
// which is cheaper and simpler for everyone.
func (h *Handler) wantsSSE(r *http.Request, m *rpcMessage) bool {
	if h.opts.JSONResponse || !accepts(r, "text/event-stream") {
		return false
	}
	progress := m.meta.has(mcp.MetaProgressToken)
	return m.method == "tools/call" || m.method == "subscriptions/listen" || progress
}

// before reports whether revision v is older than r; revisions are dates,
// so they order as strings, and "" (not known yet) is older than none.
func before(v, r string) bool { return v != "" && v < r }

// jsonContentType is the Content-Type of JSON answers, set as it is: Set
// would allocate its slice on every answer. net/http only reads it (and
// copies the header as the response starts).
var jsonContentType = []string{"application/json"}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	hd := w.Header()
	hd["Content-Type"] = jsonContentType
	hd["Content-Length"] = []string{strconv.Itoa(len(body))}
	if dw, ok := w.(*deadlineWriter); ok {
		dw.writeWhole(status, body)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// get opens the standalone SSE stream of a legacy session, or resumes a
// stream after Last-Event-ID.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		writeHTTPError(w, httpErr(http.StatusNotAcceptable, mcp.CodeInvalidRequest, "not acceptable: Accept must list text/event-stream"))
		return
	}
	if hv, _ := headerValue(r, HeaderProtocolVersion); mcp.IsStateless(hv) && h.srv.CheckVersion(hv) == nil {
		w.Header().Set("Allow", "POST")
		writeHTTPError(w, httpErr(http.StatusMethodNotAllowed, mcp.CodeInvalidRequest, "method not allowed: "+hv+" has no GET stream"))
		return
	}
	s, e := h.enterLookup(r, nil)
	if e != nil {
		writeHTTPError(w, e)
		return
	}
	defer s.leave()
	defer h.keepShared(s)()
	es, after, resumed := s.standalone, -1, false
	if last, ok := headerValue(r, HeaderLastEventID); ok {
		if id, n, ok := parseEventID(last); ok {
			found := s.stream(id)
			if found == nil && h.opts.Events != nil {
				h.resumeStored(w, r, s, id, n)
				return
			}
			if found == nil {
				writeHTTPError(w, errStreamGone(id))
				return
			}
			if n > found.issued() {
				writeHTTPError(w, errFutureEvent(id, n))
				return
			}
			es, after, resumed = found, n, true
		}
	}
	if after < 0 {
		after = es.sentUpTo()
	}
	if !es.attach() {
		writeHTTPError(w, httpErr(http.StatusConflict, mcp.CodeInvalidRequest, "conflict: this stream is already open in another request"))
		return
	}
	sw := startSSE(w, s.id)
	// The stream lives as long as the session: BodyTimeout's read
	// deadline, whose expiry would cancel the request, no longer applies.
	_ = sw.rc.SetReadDeadline(time.Time{})
	if !resumed && !before(s.ss.ProtocolVersion(), mcp.Version20251125) {
		if sw.prime(es.eventID(after), h.opts.Retry) != nil {
			es.detach()
			return
		}
	}
	if h.serveStream(r, sw, es, after) && es != s.standalone {
		s.dropStream(es)
	}
}

// delete ends a legacy session.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	s, e := h.lookup(r, nil)
	if e != nil {
		writeHTTPError(w, e)
		return
	}
	if e := h.forgetShared(r.Context(), s.id); e != nil {
		writeHTTPError(w, e)
		return
	}
	s.end()
	w.WriteHeader(http.StatusNoContent)
}

// endLater closes a stateless request's session once its response is
// written, without holding the response: closing a session waits for its
// read loop and connection to wind down, which cost a sequential client
// more than the request itself (the connection stays busy until
// ServeHTTP returns). Shutdown waits for these closes too.
//
// A session whose connection never started (the request sent nothing
// before its response, as most do) has nothing to wind down: it ends at
// once, cheaper than a goroutine. Should its connection start after the
// check, ending it still closes that connection, only not in the
// background.
func (h *Handler) endLater(s *httpSession) {
	if !s.connected.Load() {
		s.end()
		s.untrack()
		return
	}
	h.addBusy(1)
	go func() {
		defer h.addBusy(-1)
		s.end()
		s.untrack()
	}()
}

// errForbiddenIdentity answers a request for a session opened with
// another identity's token.
func errForbiddenIdentity() *httpError {
	return httpErr(http.StatusForbidden, mcp.CodeInvalidRequest, "forbidden: the session was opened with another identity's token")
}

// errSessionGone answers a request for a session that expired or was
// deleted: 404 tells the client to initialize a new one.
func errSessionGone() *httpError {
	return httpErr(http.StatusNotFound, mcp.CodeInvalidRequest, "session not found: it expired or was deleted; initialize a new one")
}
