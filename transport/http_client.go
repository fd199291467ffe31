package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HTTPClientOptions configure NewHTTPStream and NewHTTPFramer. The zero
// value is ready to use.
type HTTPClientOptions struct {
	// Client sends the requests; nil means a client with no overall
	// timeout (SSE responses last as long as their calls) over
	// http.DefaultTransport.
	Client *http.Client
	// Header is added to every request, for example Authorization.
	Header http.Header
	// MaxMessageSize bounds one incoming message; zero means
	// DefaultMaxMessageSize.
	MaxMessageSize int
	// NoListen keeps the framer from opening the GET stream on which a
	// legacy server sends what is not tied to a request (list changes).
	NoListen bool
	// MaxRetries bounds consecutive reconnection attempts of an
	// interrupted SSE stream; zero means 3, negative means none.
	MaxRetries int
	// RetryDelay is the wait before reconnecting when the server gave no
	// "retry:" hint; zero means one second.
	RetryDelay time.Duration
	// Logger receives the transport's diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Stream configures the Stream that NewHTTPStream returns.
	Stream *StreamOptions
}

// ErrSessionExpired matches a *SessionExpiredError: the server no longer
// knows the session (HTTP 404), so the connection is over and a new one
// must initialize again.
var ErrSessionExpired = errors.New("transport: HTTP session expired")

// SessionExpiredError reports that the server answered 404 to a request in
// a session. It is the close cause of the connection over the framer.
type SessionExpiredError struct {
	SessionID string
	Method    string // the HTTP method that met the 404
}

func (e *SessionExpiredError) Error() string {
	return fmt.Sprintf("transport: HTTP session %s expired (%s got 404 Not Found)", e.SessionID, e.Method)
}

// Is makes errors.Is(err, ErrSessionExpired) true.
func (e *SessionExpiredError) Is(target error) bool { return target == ErrSessionExpired }

// NewHTTPStream returns a Stream to the MCP server at url over the
// Streamable HTTP transport. ctx bounds the transport's life: when it
// ends, requests in flight are aborted and the stream reads EOF.
func NewHTTPStream(ctx context.Context, url string, opts *HTTPClientOptions) (*Stream, error) {
	f, err := NewHTTPFramer(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	var so *StreamOptions
	if opts != nil {
		so = opts.Stream
	}
	return NewStream(f, so), nil
}

// HTTPFramer is the client side of the Streamable HTTP transport as a
// Framer: each message written is POSTed; responses, whether one JSON
// object or an SSE stream, and the events of the GET stream are read back
// as frames.
//
// It keeps the session the server assigns at initialize (Mcp-Session-Id)
// and the protocol version the initialize response names, and sends both
// with every later request. Messages of the stateless era (2026-07-28,
// told by their _meta) carry their version and the Mcp-Method and
// Mcp-Name headers instead; cancelling one closes its POST.
type HTTPFramer struct {
	url     string
	client  *http.Client
	header  http.Header
	max     int
	listen  bool
	retries int
	delay   time.Duration
	log     *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	in     chan inFrame
	done   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup

	mu        sync.Mutex
	cause     error                        // why reading ends; set before done closes
	closing   bool                         // shutdown began: no new background work
	sessionID string                       // from the initialize response
	version   string                       // negotiated by initialize
	params    map[string]map[string]string // tool -> parameter -> x-mcp-header name
	stateless string                       // the stateless version last used, for messages without _meta
	listening bool
	retryHint time.Duration
	inflight  map[string]context.CancelFunc // requests by id key
}

type inFrame struct {
	msg []byte
	err error
}

// NewHTTPFramer returns the framer under NewHTTPStream, for callers that
// wrap it (TapFramer) before making a Stream.
func NewHTTPFramer(ctx context.Context, rawURL string, opts *HTTPClientOptions) (*HTTPFramer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("transport: MCP endpoint: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("transport: MCP endpoint %q: scheme must be http or https", rawURL)
	}
	if opts == nil {
		opts = &HTTPClientOptions{}
	}
	f := &HTTPFramer{
		url:      u.String(),
		client:   opts.Client,
		header:   opts.Header.Clone(),
		max:      opts.MaxMessageSize,
		listen:   !opts.NoListen,
		retries:  opts.MaxRetries,
		delay:    opts.RetryDelay,
		log:      opts.Logger,
		in:       make(chan inFrame, 64),
		done:     make(chan struct{}),
		inflight: map[string]context.CancelFunc{},
	}
	if f.client == nil {
		f.client = &http.Client{}
	}
	if f.max <= 0 {
		f.max = DefaultMaxMessageSize
	}
	if f.retries == 0 {
		f.retries = 3
	}
	if f.delay <= 0 {
		f.delay = time.Second
	}
	if f.log == nil {
		f.log = slog.Default()
	}
	f.ctx, f.cancel = context.WithCancel(ctx)
	context.AfterFunc(f.ctx, func() { f.shutdown(io.EOF, false) })
	return f, nil
}

// SessionID returns the session the server assigned, or "".
func (f *HTTPFramer) SessionID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessionID
}

// ProtocolVersion returns the version negotiated by initialize, or "".
func (f *HTTPFramer) ProtocolVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.version
}

// ReadFrame implements Framer.
func (f *HTTPFramer) ReadFrame() ([]byte, error) {
	select {
	case fr := <-f.in:
		return fr.msg, fr.err
	default:
	}
	select {
	case fr := <-f.in:
		return fr.msg, fr.err
	case <-f.done:
		select {
		case fr := <-f.in:
			return fr.msg, fr.err
		default:
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		return nil, f.cause
	}
}

// outMsg is what the framer needs to know of a message it sends.
type outMsg struct {
	raw       []byte
	id        ID
	method    string
	response  bool
	version   string // _meta protocol version, if any
	name      string // for Mcp-Name
	hasName   bool
	requestID json.RawMessage            // of notifications/cancelled
	args      map[string]json.RawMessage // of tools/call, for Mcp-Param-* headers
}

func (m *outMsg) isRequest() bool { return !m.response && !m.id.IsZero() }

func peekOut(msg []byte) *outMsg {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params struct {
			Meta      map[string]json.RawMessage `json:"_meta"`
			Name      *string                    `json:"name"`
			URI       *string                    `json:"uri"`
			RequestID json.RawMessage            `json:"requestId"`
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	_ = json.Unmarshal(msg, &env)
	m := &outMsg{raw: msg, requestID: env.Params.RequestID, args: env.Params.Arguments}
	m.id, _ = ParseID(env.ID)
	if env.Method == nil {
		m.response = true
		return m
	}
	m.method = *env.Method
	_ = json.Unmarshal(env.Params.Meta["io.modelcontextprotocol/protocolVersion"], &m.version)
	switch {
	case (m.method == "tools/call" || m.method == "prompts/get") && env.Params.Name != nil:
		m.name, m.hasName = *env.Params.Name, true
	case m.method == "resources/read" && env.Params.URI != nil:
		m.name, m.hasName = *env.Params.URI, true
	}
	return m
}

// isStatelessVersion mirrors mcp.IsStateless, which this package cannot
// import: revisions are dates, and 2026-07-28 began the stateless era.
func isStatelessVersion(v string) bool { return v >= "2026-07-28" }

// WriteFrame implements Framer. A request is POSTed in the background and
// its response read back as frames; a notification or response is POSTed
// before WriteFrame returns, so that messages reach the server in order.
func (f *HTTPFramer) WriteFrame(msg []byte) error {
	select {
	case <-f.done:
		return fmt.Errorf("transport: HTTP framer: %w", ErrClosed)
	default:
	}
	m := peekOut(append([]byte(nil), msg...))
	f.mu.Lock()
	// A message without _meta (a notification, say) follows the era of
	// the connection: stateless until an initialize succeeds.
	stateless := isStatelessVersion(m.version) || (f.version == "" && f.stateless != "" && m.method != "initialize")
	if isStatelessVersion(m.version) {
		f.stateless = m.version
	}
	f.mu.Unlock()
	if stateless && m.method == "notifications/cancelled" {
		// A stateless request has no session to cancel it in: closing its
		// connection is the cancellation.
		if id, err := ParseID(m.requestID); err == nil {
			f.mu.Lock()
			cancel := f.inflight[id.Key()]
			f.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
		return nil
	}
	if m.isRequest() {
		ctx, cancel := context.WithCancel(f.ctx)
		f.mu.Lock()
		if f.closing {
			f.mu.Unlock()
			cancel()
			return fmt.Errorf("transport: HTTP framer: %w", ErrClosed)
		}
		f.inflight[m.id.Key()] = cancel
		f.wg.Add(1) // under mu, so never concurrent with Close's Wait
		f.mu.Unlock()
		go func() {
			defer f.wg.Done()
			defer func() {
				f.mu.Lock()
				delete(f.inflight, m.id.Key())
				f.mu.Unlock()
				cancel()
			}()
			f.roundTrip(ctx, m, stateless)
		}()
		return nil
	}
	resp, err := f.do(f.ctx, http.MethodPost, m, stateless, "")
	if err != nil {
		return fmt.Errorf("transport: POST %s: %w", describe(m), err)
	}
	defer drain(resp)
	switch {
	case resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get("Mcp-Session-Id") != "":
		f.expire(resp.Request.Header.Get("Mcp-Session-Id"), http.MethodPost)
		return fmt.Errorf("transport: POST %s: %w", describe(m), ErrSessionExpired)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("transport: POST %s: %s", describe(m), httpErrorText(resp, f.max))
	}
	return nil
}

func describe(m *outMsg) string {
	if m.response {
		return "response " + m.id.String()
	}
	return m.method
}

// do sends one HTTP request with the headers its message calls for.
func (f *HTTPFramer) do(ctx context.Context, method string, m *outMsg, stateless bool, lastEventID string) (*http.Response, error) {
	var body io.Reader
	if m != nil {
		body = bytes.NewReader(m.raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.url, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range f.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-Id", lastEventID)
	}
	f.mu.Lock()
	sid, version, sv := f.sessionID, f.version, f.stateless
	f.mu.Unlock()
	if stateless {
		if m != nil && isStatelessVersion(m.version) {
			sv = m.version
		}
		req.Header.Set("Mcp-Protocol-Version", sv)
		if m != nil && !m.response {
			req.Header.Set("Mcp-Method", m.method)
			if m.hasName {
				req.Header.Set("Mcp-Name", encodeHeaderValue(m.name))
			}
		}
	} else {
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if version != "" {
			req.Header.Set("Mcp-Protocol-Version", version)
		}
	}
	f.setParamHeaders(req.Header, m)
	return f.client.Do(req)
}

// encodeHeaderValue writes a value HTTP cannot carry as it is (non-ASCII,
// control characters, surrounding space) in the "=?base64?…?=" form.
func encodeHeaderValue(v string) string {
	plain := v == strings.TrimSpace(v)
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain && !strings.HasPrefix(v, "=?base64?") {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// roundTrip POSTs a request and feeds back its response, resuming an
// interrupted SSE stream with Last-Event-ID where the session allows.
func (f *HTTPFramer) roundTrip(ctx context.Context, m *outMsg, stateless bool) {
	resp, err := f.do(ctx, http.MethodPost, m, stateless, "")
	if err != nil {
		if ctx.Err() == nil {
			f.fail(m, "POST failed: "+err.Error())
		}
		return
	}
	defer drain(resp)
	sid := resp.Request.Header.Get("Mcp-Session-Id")
	switch {
	case resp.StatusCode == http.StatusNotFound && sid != "":
		f.expire(sid, http.MethodPost)
		return
	case resp.StatusCode == http.StatusAccepted:
		return // the server will answer elsewhere (its GET stream)
	case resp.StatusCode/100 != 2:
		f.failHTTP(m, resp)
		return
	}
	if m.method == "initialize" {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			f.mu.Lock()
			f.sessionID = id
			f.mu.Unlock()
		}
	}
	if !isEventStream(resp) {
		b, err := io.ReadAll(io.LimitReader(resp.Body, int64(f.max)+1))
		switch {
		case err != nil:
			f.fail(m, "reading the response: "+err.Error())
		case len(b) > f.max:
			f.push(inFrame{err: &TooLargeError{Size: int64(len(b)), Limit: f.max, Head: head(b)}})
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
			f.expire(r.Request.Header.Get("Mcp-Session-Id"), http.MethodGet)
			return
		}
		if r.StatusCode/100 != 2 || !isEventStream(r) {
			drain(r)
			break
		}
		var a bool
		a, last = f.readEvents(ctx, r.Body, m)
		answered = answered || a
		drain(r)
	}
	if !answered && ctx.Err() == nil {
		f.fail(m, "the server's event stream ended before the response")
	}
}

// wait sleeps for the server's retry hint, or the default delay.
func (f *HTTPFramer) wait(ctx context.Context) bool {
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
func (f *HTTPFramer) readEvents(ctx context.Context, body io.Reader, m *outMsg) (answered bool, last string) {
	r := newEventReader(body, f.max)
	for {
		ev, err := r.next()
		if err != nil {
			return answered, r.lastID
		}
		if ev.retry > 0 {
			f.mu.Lock()
			f.retryHint = ev.retry
			f.mu.Unlock()
		}
		if ev.tooLarge != nil {
			f.push(inFrame{err: ev.tooLarge})
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
func (f *HTTPFramer) incoming(msg []byte, m *outMsg) bool {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	_ = json.Unmarshal(msg, &env)
	isResp := false
	if m != nil && env.Method == nil {
		if id, err := ParseID(env.ID); err == nil && id.Key() == m.id.Key() {
			isResp = true
		}
	}
	if isResp && m.method == "tools/list" {
		msg = f.learnTools(msg)
	}
	if isResp && m.method == "initialize" && env.Result.ProtocolVersion != "" {
		f.mu.Lock()
		f.version = env.Result.ProtocolVersion
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
	f.push(inFrame{msg: msg})
	return isResp
}

// listenLoop keeps the GET stream open for the session's life. A server
// without one answers 405, which ends the loop quietly.
func (f *HTTPFramer) listenLoop() {
	last, failures := "", 0
	for f.ctx.Err() == nil {
		resp, err := f.do(f.ctx, http.MethodGet, nil, false, last)
		switch {
		case err != nil:
			failures++
		case resp.StatusCode == http.StatusNotFound:
			drain(resp)
			f.expire(resp.Request.Header.Get("Mcp-Session-Id"), http.MethodGet)
			return
		case resp.StatusCode == http.StatusMethodNotAllowed:
			drain(resp)
			return
		case resp.StatusCode/100 != 2 || !isEventStream(resp):
			f.log.Warn("transport: the server refused the GET stream", "status", resp.Status)
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
			f.log.Warn("transport: giving up on the GET stream", "err", err)
			return
		}
		if !f.wait(f.ctx) {
			return
		}
	}
}

// fail answers request m with an internal error made up here, so that
// its caller learns at once what the transport could not do.
func (f *HTTPFramer) fail(m *outMsg, why string) {
	f.failCode(m, CodeInternalError, "transport: "+why, nil)
}

func (f *HTTPFramer) failCode(m *outMsg, code int64, message string, data json.RawMessage) {
	e := &Error{Code: code, Message: message, Data: data}
	errObj, _ := json.Marshal(e)
	b := append([]byte(`{"jsonrpc":"2.0","id":`), m.id.Raw()...)
	b = append(append(append(b, `,"error":`...), errObj...), '}')
	f.push(inFrame{msg: b})
}

// failHTTP answers request m from an HTTP error: with the JSON-RPC error
// the server put in the body, under m's id if the server did not know it
// (a refusal before the body was read has id null).
func (f *HTTPFramer) failHTTP(m *outMsg, resp *http.Response) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var env struct {
		ID    json.RawMessage `json:"id"`
		Error *Error          `json:"error"`
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
		Error *Error `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil && env.Error != nil {
		return "HTTP " + resp.Status + ": " + env.Error.Error()
	}
	return "HTTP " + resp.Status
}

func (f *HTTPFramer) push(fr inFrame) {
	select {
	case f.in <- fr:
	case <-f.done:
	}
}

// expire ends the connection because the server forgot the session.
func (f *HTTPFramer) expire(sid, method string) {
	f.mu.Lock()
	if f.sessionID == sid {
		f.sessionID = ""
	}
	f.mu.Unlock()
	f.shutdown(&SessionExpiredError{SessionID: sid, Method: method}, false)
}

// shutdown ends the framer once: reading returns cause, background
// requests are aborted and, if asked, the session is deleted.
func (f *HTTPFramer) shutdown(cause error, deleteSession bool) {
	f.once.Do(func() {
		f.mu.Lock()
		f.cause = cause
		f.closing = true
		sid := f.sessionID
		f.mu.Unlock()
		f.cancel()
		if deleteSession && sid != "" {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(f.ctx), 5*time.Second)
			if resp, err := f.do(ctx, http.MethodDelete, nil, false, ""); err == nil {
				drain(resp)
			}
			cancel()
		}
		close(f.done)
	})
}

// Close implements Framer: it deletes the session (as the transport asks
// of a client that is done with it), aborts what is in flight and waits
// for the framer's goroutines.
func (f *HTTPFramer) Close() error {
	f.shutdown(io.EOF, true)
	f.wg.Wait()
	return nil
}

func isEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// drain reads a little of what is left of a body, so that the connection
// can be reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
}

func head(b []byte) []byte {
	if len(b) > 4096 {
		return b[:4096]
	}
	return b
}

// sseEvent is one event of a text/event-stream.
type sseEvent struct {
	name     string
	data     []byte
	retry    time.Duration
	tooLarge *TooLargeError
}

// eventReader parses text/event-stream (the WHATWG "server-sent events"
// format): fields until a blank line, "data" lines joined by LF.
type eventReader struct {
	br     *bufio.Reader
	max    int
	lastID string
}

func newEventReader(r io.Reader, max int) *eventReader {
	// Small: line() accumulates longer lines itself, and a response that is
	// one short event should not cost a 64 KiB buffer.
	return &eventReader{br: bufio.NewReaderSize(r, 4<<10), max: max}
}

func (r *eventReader) next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	hasData, over := false, int64(0)
	for {
		line, dropped, err := r.line()
		if err != nil {
			return ev, err
		}
		if len(line) == 0 {
			if over > 0 {
				ev.tooLarge = &TooLargeError{Size: int64(data.Len()) + over, Limit: r.max, Head: head(data.Bytes())}
				return ev, nil
			}
			if hasData || ev.retry > 0 {
				ev.data = data.Bytes()
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			hasData = true
			over += dropped
			if room := r.max - data.Len(); len(value) > room {
				over += int64(len(value) - max(room, 0))
				value = value[:max(room, 0)]
			}
			data.Write(value)
		case "event":
			ev.name = string(value)
		case "id":
			if !bytes.ContainsRune(value, 0) {
				r.lastID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				ev.retry = time.Duration(n) * time.Millisecond
			}
		}
	}
}

// line returns one line without its terminator (LF, CRLF or CR before
// LF), keeping at most max+16 bytes of it: longer data is counted as over
// the limit by next.
func (r *eventReader) line() (line []byte, dropped int64, err error) {
	keep := r.max + 16
	for {
		chunk, err := r.br.ReadSlice('\n')
		n := min(len(chunk), max(keep-len(line), 0))
		line = append(line, chunk[:n]...)
		dropped += int64(len(chunk) - n)
		switch {
		case err == nil:
			if dropped > 0 {
				dropped-- // the LF
			} else {
				line = line[:len(line)-1]
			}
			return bytes.TrimSuffix(line, []byte("\r")), dropped, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(line) > 0 && errors.Is(err, io.EOF):
			return bytes.TrimSuffix(line, []byte("\r")), dropped, nil
		default:
			return nil, 0, err
		}
	}
}
