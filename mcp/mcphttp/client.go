package mcphttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/urlshow"
	"github.com/winbridge/winbridge/internal/wirenames"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// ClientOptions configure NewStream and NewFramer. The zero value is
// ready to use.
type ClientOptions struct {
	// Client sends the requests; nil means a client with no overall
	// timeout (SSE responses last as long as their calls) over a clone
	// of http.DefaultTransport that keeps DefaultMaxIdleConnsPerHost
	// idle connections per host instead of 2, reads at most 1 MiB of
	// response headers instead of 10, and follows redirects within the
	// URL's origin, or from http to https on its host, only (the headers,
	// Header's included, would go along to any host). A client of your own serving many calls at
	// once wants the same: each call in flight is a POST of its own.
	Client *http.Client
	// Header is added to every request, for example Authorization.
	Header http.Header
	// MaxMessageSize bounds one incoming message; zero means
	// transport.DefaultMaxMessageSize.
	MaxMessageSize int
	// NoListen keeps the framer from opening the GET stream on which a
	// legacy server sends what is not tied to a request (list changes).
	NoListen bool
	// MaxRetries bounds consecutive reconnection attempts of an
	// interrupted SSE stream; zero means 3, negative means none.
	MaxRetries int
	// RetryDelay is the wait before reconnecting when the server gave no
	// "retry:" hint; zero means one second. A hint is honoured down to
	// MinRetryDelay only.
	RetryDelay time.Duration
	// CloseTimeout bounds how long Close waits for the DELETE that ends
	// the session; zero means DefaultCloseTimeout, negative means Close
	// sends no DELETE and leaves the session to expire on the server.
	// The DELETE is a courtesy to the server, which expires sessions
	// anyway: a server that does not answer it must not hold the caller
	// of Close, so past the bound it is abandoned.
	CloseTimeout time.Duration
	// Logger receives the transport's diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Stream configures the Stream that NewStream returns.
	Stream *transport.StreamOptions
}

// DefaultCloseTimeout is ClientOptions.CloseTimeout when unset: room for
// a DELETE on a live connection to a distant server, short enough that
// closing a client never takes noticeably long.
const DefaultCloseTimeout = 500 * time.Millisecond

// MinRetryDelay is the shortest wait before reconnecting that a server's
// "retry:" hint can set: without a floor, "retry: 1" and streams that end
// at once made the client reconnect every millisecond, forever (a stream
// that delivered something resets the count of failures MaxRetries
// bounds).
const MinRetryDelay = 250 * time.Millisecond

// ErrSessionExpired matches a *SessionExpiredError: the server no longer
// knows the session (HTTP 404), so the connection is over and a new one
// must initialize again.
var ErrSessionExpired = errors.New("mcphttp: session expired")

// SessionExpiredError reports that the server answered 404 to a request in
// a session. It is the close cause of the connection over the framer.
type SessionExpiredError struct {
	SessionID string // the session the server forgot
	Method    string // the HTTP method that met the 404
}

// Error implements the error interface.
func (e *SessionExpiredError) Error() string {
	return fmt.Sprintf("mcphttp: session %s expired (%s got 404 Not Found)", e.SessionID, e.Method)
}

// Is makes errors.Is(err, ErrSessionExpired) true.
func (e *SessionExpiredError) Is(target error) bool { return target == ErrSessionExpired }

// NewStream returns a transport.Stream to the MCP server at url over the
// Streamable HTTP transport, ready for client.Connect. ctx bounds the transport's life: when it
// ends, requests in flight are aborted and the stream reads EOF.
func NewStream(ctx context.Context, url string, opts *ClientOptions) (*transport.Stream, error) {
	f, err := NewFramer(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	var so *transport.StreamOptions
	if opts != nil {
		so = opts.Stream
	}
	return transport.NewStream(f, so), nil
}

// Framer is the client side of the Streamable HTTP transport as a
// transport.Framer: each message written is POSTed; responses, whether one JSON
// object or an SSE stream, and the events of the GET stream are read back
// as frames.
//
// It keeps the session the server assigns at initialize (Mcp-Session-Id)
// and the protocol version the initialize response names, and sends both
// with every later request. Messages of the stateless era (2026-07-28,
// told by their _meta) carry their version and the Mcp-Method and
// Mcp-Name headers instead; cancelling one closes its POST.
type Framer struct {
	url      string
	endpoint *http.Request // the template of every request (request.go)
	// shareHeader: requests may share one header map (canShareHeader).
	shareHeader bool
	gzip        bool // the framer asks for gzip and decodes it (gzip.go)
	client      *http.Client
	header      http.Header
	max         int
	listen      bool
	retries     int
	delay       time.Duration
	closeWait   time.Duration // ClientOptions.CloseTimeout; negative: no DELETE
	log         *slog.Logger

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
	params    map[string]map[string]string // tool -> parameter -> x-mcp-header name, of the last complete tools/list
	listing   map[string]map[string]string // the same of the tools/list under way; nil for a tool without (learnTools)
	stateless string                       // the stateless version last used, for messages without _meta
	listening bool
	retryHint time.Duration
	headers   map[headerKey]http.Header     // POST headers shared where shareHeader
	inflight  map[string]context.CancelFunc // requests by id key
	awaiting  map[string]*sink              // RoundTrip calls by id key (direct.go)
}

type inFrame struct {
	msg     []byte
	err     error
	barrier chan struct{}   // not a frame: closed when the reader comes back for more
	related context.Context // the RoundTrip whose stream carried msg, or nil
}

// NewFramer returns the framer under NewStream, for callers that wrap it
// (transport.TapFramer) before making a Stream of it.
func NewFramer(ctx context.Context, rawURL string, opts *ClientOptions) (*Framer, error) {
	// The errors show the endpoint as urlshow does: its query, path or
	// userinfo may hold the server's key.
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: MCP endpoint: %w", urlshow.Error(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("mcphttp: MCP endpoint %q: scheme must be http or https", urlshow.URL(u))
	}
	if opts == nil {
		opts = &ClientOptions{}
	}
	endpoint, err := newEndpoint(u.String())
	if err != nil {
		return nil, fmt.Errorf("mcphttp: MCP endpoint: %w", err)
	}
	f := &Framer{
		url:       u.String(),
		endpoint:  endpoint,
		client:    opts.Client,
		header:    opts.Header.Clone(),
		max:       opts.MaxMessageSize,
		listen:    !opts.NoListen,
		retries:   opts.MaxRetries,
		delay:     opts.RetryDelay,
		closeWait: opts.CloseTimeout,
		log:       opts.Logger,
		in:        make(chan inFrame, 64),
		done:      make(chan struct{}),
		inflight:  map[string]context.CancelFunc{},
		awaiting:  map[string]*sink{},
	}
	if f.client == nil {
		f.client = defaultClient()
	}
	f.shareHeader = canShareHeader(f.client)
	f.gzip = acceptsGzip(f.client, f.header)
	if f.max <= 0 {
		f.max = transport.DefaultMaxMessageSize
	}
	if f.retries == 0 {
		f.retries = 3
	}
	if f.delay <= 0 {
		f.delay = time.Second
	}
	if f.closeWait == 0 {
		f.closeWait = DefaultCloseTimeout
	}
	if f.log == nil {
		f.log = slog.Default()
	}
	f.ctx, f.cancel = context.WithCancel(ctx)
	context.AfterFunc(f.ctx, func() { f.shutdown(io.EOF, false) })
	return f, nil
}

// SessionID returns the session the server assigned, or "".
func (f *Framer) SessionID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessionID
}

// ProtocolVersion returns the version negotiated by initialize, or "".
func (f *Framer) ProtocolVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.version
}

// ReadFrame implements transport.Framer.
func (f *Framer) ReadFrame() ([]byte, error) {
	msg, _, err := f.ReadFrameRelated()
	return msg, err
}

// ReadFrameRelated implements transport.RelatedFramer: a message that came
// on the SSE stream of a RoundTrip's POST (a server's request about that
// call) comes with the context the RoundTrip was called with.
func (f *Framer) ReadFrameRelated() ([]byte, context.Context, error) {
	for {
		fr := f.next()
		if fr.barrier != nil {
			// The reader is back, so it has handled every frame before
			// the barrier: a RoundTrip waiting for that may return.
			close(fr.barrier)
			continue
		}
		return fr.msg, fr.related, fr.err
	}
}

// next returns the next queued frame, or the cause of the end.
func (f *Framer) next() inFrame {
	select {
	case fr := <-f.in:
		return fr
	default:
	}
	select {
	case fr := <-f.in:
		return fr
	case <-f.done:
		select {
		case fr := <-f.in:
			return fr
		default:
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		return inFrame{err: f.cause}
	}
}

// outMsg is what the framer needs to know of a message it sends.
type outMsg struct {
	raw       []byte
	id        transport.ID
	method    string
	response  bool
	version   string // _meta protocol version, if any
	name      string // for Mcp-Name
	hasName   bool
	requestID json.RawMessage // of notifications/cancelled
	rawArgs   json.RawMessage // of tools/call, for Mcp-Param-* headers
	sink      *sink           // where the response goes, for a RoundTrip
	own       sink            // what sink points to, for a RoundTrip (direct.go)
	body      bytes.Reader    // the POST's body (request.go)
}

func (m *outMsg) isRequest() bool { return !m.response && !m.id.IsZero() }

// peekOut reads what the framer needs of a message it sends. The
// message is normally the Stream's own encoding, valid JSON, walked
// without decoding; anything else takes encoding/json, which reads what
// it can of it as before.
func peekOut(msg []byte) *outMsg {
	var rawID, rawMethod, params []byte
	hasMethod := false
	// Checked as it is walked: one pass, not two.
	valid := jsonscan.MembersValid(msg, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			rawID = v
		case "method":
			rawMethod, hasMethod = v, string(v) != "null"
		case "params":
			params = v
		}
		return true
	})
	if !valid {
		return peekOutSlow(msg)
	}
	m := &outMsg{raw: msg}
	var meta, name, uri, taskID []byte
	if len(params) > 0 && params[0] == '{' {
		_ = jsonscan.MembersBytes(params, func(k, v []byte) bool {
			switch string(k) {
			case "_meta":
				meta = v
			case "name":
				name = v
			case "uri":
				uri = v
			case "taskId":
				taskID = v
			case "requestId":
				m.requestID = v
			case "arguments":
				m.rawArgs = v
			}
			return true
		})
	}
	m.id, _ = transport.ParseID(rawID)
	if !hasMethod {
		m.response = true
		return m
	}
	m.method, _ = wirenames.Unquote(rawMethod) // not a string: "", as encoding/json left it
	if len(meta) > 0 && meta[0] == '{' {
		// By bytes: jsonscan.Member makes a string of every key, and
		// those of _meta are long.
		var v []byte
		_ = jsonscan.MembersBytes(meta, func(k, val []byte) bool {
			if string(k) == mcp.MetaProtocolVersion {
				v = val
			}
			return true
		})
		if v != nil {
			m.version, _ = wirenames.Unquote(v)
		}
	}
	str := func(raw []byte) (string, bool) {
		if raw == nil || string(raw) == "null" {
			return "", false
		}
		return jsonscan.Unquote(raw)
	}
	switch m.method {
	case "tools/call", "prompts/get":
		m.name, m.hasName = str(name)
	case "resources/read":
		m.name, m.hasName = str(uri)
	case "tasks/get", "tasks/update", "tasks/cancel":
		m.name, m.hasName = str(taskID)
	}
	return m
}

// peekOutSlow is peekOut for a message that is not valid JSON. It reads
// each level as raw members and decodes only strings, so that on valid
// JSON it agrees with peekOut (FuzzPeekOut): the last of duplicate members
// wins, whole (a second params replaces the first, not merges into it),
// and a name, uri or taskId that is not a string is no name, not "".
func peekOutSlow(msg []byte) *outMsg {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(msg, &env)
	var params struct {
		Meta      json.RawMessage `json:"_meta"`
		Name      json.RawMessage `json:"name"`
		URI       json.RawMessage `json:"uri"`
		TaskID    json.RawMessage `json:"taskId"`
		RequestID json.RawMessage `json:"requestId"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(env.Params, &params)
	m := &outMsg{raw: msg, requestID: params.RequestID, rawArgs: params.Arguments}
	m.id, _ = transport.ParseID(env.ID)
	if env.Method == nil || string(env.Method) == "null" {
		m.response = true
		return m
	}
	_ = json.Unmarshal(env.Method, &m.method) // not a string: ""
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(params.Meta, &meta)
	_ = json.Unmarshal(meta[mcp.MetaProtocolVersion], &m.version)
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	switch m.method {
	case "tools/call", "prompts/get":
		m.name, m.hasName = str(params.Name)
	case "resources/read":
		m.name, m.hasName = str(params.URI)
	case "tasks/get", "tasks/update", "tasks/cancel":
		m.name, m.hasName = str(params.TaskID)
	}
	return m
}

// WriteFrame implements transport.Framer. A request is POSTed in the background and
// its response read back as frames; a notification or response is POSTed
// before WriteFrame returns, so that messages reach the server in order.
func (f *Framer) WriteFrame(msg []byte) error {
	select {
	case <-f.done:
		return fmt.Errorf("mcphttp: framer: %w", transport.ErrClosed)
	default:
	}
	m := peekOut(append([]byte(nil), msg...))
	stateless := f.era(m)
	if stateless && m.method == "notifications/cancelled" {
		// A stateless request has no session to cancel it in: closing its
		// connection is the cancellation.
		if id, err := transport.ParseID(m.requestID); err == nil {
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
			return fmt.Errorf("mcphttp: framer: %w", transport.ErrClosed)
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
		return fmt.Errorf("mcphttp: POST %s: %w", describe(m), err)
	}
	defer drain(resp)
	switch {
	case resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get(HeaderSessionID) != "":
		f.expire(resp.Request.Header.Get(HeaderSessionID), http.MethodPost)
		return fmt.Errorf("mcphttp: POST %s: %w", describe(m), ErrSessionExpired)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("mcphttp: POST %s: %s", describe(m), httpErrorText(resp, f.max))
	}
	return nil
}

// era reports whether m goes out in the stateless era, and remembers the
// stateless version m names.
func (f *Framer) era(m *outMsg) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.eraLocked(m)
}

// eraLocked is era with f.mu held.
func (f *Framer) eraLocked(m *outMsg) bool {
	// A message without _meta (a notification, say) follows the era of
	// the connection: stateless until an initialize succeeds.
	stateless := mcp.IsStateless(m.version) || (f.version == "" && f.stateless != "" && m.method != "initialize")
	if mcp.IsStateless(m.version) {
		f.stateless = m.version
	}
	return stateless
}

func describe(m *outMsg) string {
	if m.response {
		return "response " + m.id.String()
	}
	return m.method
}

// do sends one HTTP request with the headers its message calls for.
func (f *Framer) do(ctx context.Context, method string, m *outMsg, stateless bool, lastEventID string) (*http.Response, error) {
	req := f.newRequest(ctx, method, m)
	// One look under the lock for the session, the versions and the
	// tool's parameter headers.
	var h reqHeader
	f.mu.Lock()
	h.sid, h.version, h.sv = f.sessionID, f.version, f.stateless
	if m != nil && m.method == "tools/call" && m.hasName {
		h.params = f.paramsOf(m.name)
	}
	if f.shareHeader && m != nil && method == http.MethodPost && lastEventID == "" && len(h.params) == 0 {
		// A POST's headers depend on the message only through its
		// method and name (stateless) or not at all (legacy): made once,
		// shared by the requests.
		req.Header = f.sharedHeaderLocked(m, stateless, h)
	}
	f.mu.Unlock()
	if req.Header == nil {
		req.Header = make(http.Header)
		f.fillHeader(req.Header, method, m, stateless, lastEventID, h)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		// Do's *url.Error quotes the whole URL, and the error goes on to
		// callers, logs and the made-up error responses of WriteFrame.
		return resp, urlshow.Error(err)
	}
	if f.gzip {
		gunzip(resp)
	}
	return resp, nil
}

// reqHeader is what the headers of a request take from the framer's
// state.
type reqHeader struct {
	sid, version, sv string            // Framer.sessionID, version, stateless
	params           map[string]string // the tool's parameter headers
}

// headerKey is what the header of a POST without parameter headers
// depends on: the session and version (legacy), or the version, method
// and name of the message (stateless).
type headerKey struct {
	stateless, response, hasName bool
	sid, version, method, name   string
}

// maxSharedHeaders bounds the headers a framer keeps: names without end
// (resources/read of ever new URIs) empty the cache instead of growing it.
const maxSharedHeaders = 64

// sharedHeaderLocked returns the header of a POST of m, made once for
// its key. Requests share it: shareHeader holds only where nothing
// changes a request's header (no cookie jar, net/http's own Transport).
func (f *Framer) sharedHeaderLocked(m *outMsg, stateless bool, h reqHeader) http.Header {
	k := headerKey{stateless: stateless}
	if stateless {
		k.version = h.sv
		if mcp.IsStateless(m.version) {
			k.version = m.version
		}
		k.response, k.method, k.name, k.hasName = m.response, m.method, m.name, m.hasName
	} else {
		k.sid, k.version = h.sid, h.version
	}
	if hdr := f.headers[k]; hdr != nil {
		return hdr
	}
	if len(f.headers) >= maxSharedHeaders || f.headers == nil {
		f.headers = make(map[headerKey]http.Header)
	}
	hdr := make(http.Header, len(f.header)+5)
	f.fillHeader(hdr, http.MethodPost, m, stateless, "", h)
	f.headers[k] = hdr
	return hdr
}

// canShareHeader reports whether requests sent through c may share one
// header map: neither c (a cookie jar adds cookies to the request's
// header) nor its transport (net/http's, which only reads the request,
// as a RoundTripper must) changes it.
func canShareHeader(c *http.Client) bool {
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	_, std := rt.(*http.Transport)
	return c.Jar == nil && std
}

// fillHeader sets the headers of a request: the caller's, then the
// transport's own.
func (f *Framer) fillHeader(hdr http.Header, method string, m *outMsg, stateless bool, lastEventID string, h reqHeader) {
	for k, vs := range f.header {
		hdr[k] = append([]string(nil), vs...)
	}
	// The transport's own headers, under their canonical names, take
	// their values from one array instead of one allocation each
	// (http.Header.Set).
	var vals [8]string
	n := 0
	set := func(key, v string) {
		vals[n] = v
		hdr[key] = vals[n : n+1 : n+1]
		n++
	}
	if f.gzip {
		set("Accept-Encoding", "gzip")
	}
	switch method {
	case http.MethodPost:
		set("Accept", "application/json, text/event-stream")
		set("Content-Type", "application/json")
	case http.MethodGet:
		set("Accept", "text/event-stream")
	}
	if lastEventID != "" {
		set(HeaderLastEventID, lastEventID)
	}
	if stateless {
		sv := h.sv
		if m != nil && mcp.IsStateless(m.version) {
			sv = m.version
		}
		set(HeaderProtocolVersion, sv)
		if m != nil && !m.response {
			set(HeaderMethod, m.method)
			if m.hasName {
				set(HeaderName, encodeHeaderValue(m.name))
			}
		}
	} else {
		if h.sid != "" {
			set(HeaderSessionID, h.sid)
		}
		if h.version != "" {
			set(HeaderProtocolVersion, h.version)
		}
	}
	if len(h.params) > 0 {
		addParamHeaders(hdr, m, h.params)
	}
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
