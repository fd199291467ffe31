package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/decodecost"
	"github.com/winbridge/winbridge/internal/shardset"
	"github.com/winbridge/winbridge/internal/smallmap"
	"github.com/winbridge/winbridge/transport"
)

// ServerSession is one client's connection to a Server.
//
// Concurrency: the connection's read loop hands each incoming message to
// the session in arrival order. Notifications are handled right there, in
// order; notifications/cancelled therefore takes effect at once. Each
// request runs on a worker goroutine (reused between requests); tool
// calls, prompts/get and resources/read additionally take one of
// ServerOptions.MaxConcurrency slots. Every request holds one of
// ServerOptions.MaxInFlight slots until its reply is written (see admit).
// A cancelled request's context is cancelled and it gets no response; a
// panic in a handler becomes an internal error and the session goes on.
// When the session ends, every handler's context is cancelled.
type ServerSession struct {
	srv     *Server
	conn    *transport.Conn // use connection(): nil until needed in a ConnectDirect session
	connSet chan struct{}   // closed once conn is set
	direct  bool            // made by ConnectDirect
	lazy    lazyConn        // direct: how and whether conn was started
	endOnce sync.Once
	sem     chan struct{}
	work    chan func() // hand-off to idle workers (unbuffered)

	mu            sync.Mutex
	initialized   bool // initialize answered (legacy era)
	ready         bool // notifications/initialized received
	version       string
	client        *clientID               // set by initialize: a pointer, as most sessions (stateless) have none
	logLevel      LoggingLevel            // "" until logging/setLevel
	subscriptions map[string]bool         // resource URIs (legacy resources/subscribe)
	notify        coalescer               // list_changed notifications being sent
	running       smallmap.Map[*inflight] // by request id key: one inline, as a stateless session has
	done          chan struct{}           // made on first use (doneChan), or closedChan if it ends first

	// In-flight accounting (inflight.go), under mu.
	active      int           // admitted requests not finished: running, or reply not yet written
	activeBytes int64         // the size of their params
	onClient    int           // handlers waiting on the client
	wake        chan struct{} // closed at the next change of active or onClient
	ending      bool          // the session is closing: nothing more is admitted

	// who is the last stateless request's client, as sent in _meta and as
	// decoded: a client sends the same on every request, and decoding it
	// cost a tenth of a small call's allocations.
	// A pointer to a decoding never changed once made (shared with
	// Server.lastClient): the struct is large, and every stateless HTTP
	// request is a session.
	who *statelessClient

	// shard is where the Server's set of sessions holds this one.
	shard shardset.Ref
	// ownsTasks is set, under Server.taskMu, once the session owns a
	// task: the end of a session that owns none skips that lock.
	ownsTasks atomic.Bool

	// principal is who the session's requests come from (BindPrincipal).
	principal string
	// auth is what the transport verified of its latest request (SetAuth).
	auth any
}

// statelessClient memoizes the decoding of a stateless request's client
// info and capabilities.
type statelessClient struct {
	rawInfo, rawCaps []byte // as sent; nil when absent
	clientID
}

// clientID is what a client says of itself: in initialize (legacy), or in
// each request's _meta (stateless). Requests point at it rather than copy
// it (it is large); it is never changed once made.
type clientID struct {
	info Implementation
	caps ClientCapabilities
}

// noClient is the clientID of a session not initialized.
var noClient clientID

type inflight struct {
	cancel    context.CancelFunc
	cancelled bool
}

func newServerSession(s *Server) *ServerSession { return newSession(s, false) }

// newSession makes a session; a direct one (ConnectDirect) needs no wait
// for its connection, and no workers until its connection starts (see
// connection), which most stateless ones never do.
func newSession(s *Server, direct bool) *ServerSession {
	ss := &ServerSession{
		srv:     s,
		direct:  direct,
		sem:     make(chan struct{}, s.opts.MaxConcurrency),
		connSet: closedChan,
	}
	if !direct {
		ss.connSet = make(chan struct{})
		ss.work = make(chan func())
	}
	return ss
}

// closedChan is a closed channel: the connSet of direct sessions.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Done is closed when the session has ended.
func (ss *ServerSession) Done() <-chan struct{} { return ss.doneChan() }

// doneChan returns the channel closed when the session has ended. It is
// made when first asked for: a stateless session is one request, whose
// end nobody usually waits for.
func (ss *ServerSession) doneChan() <-chan struct{} {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.done == nil {
		ss.done = make(chan struct{})
	}
	return ss.done
}

// Close ends the session.
func (ss *ServerSession) Close() error {
	if ss.direct {
		return ss.closeLazy()
	}
	return ss.conn.Close()
}

func (ss *ServerSession) closed() {
	ss.shutdown()
	ss.mu.Lock()
	if ss.done == nil {
		ss.done = closedChan
	} else {
		close(ss.done)
	}
	ss.mu.Unlock()
	ss.srv.endSessionTasks(ss)
}

// ProtocolVersion returns the revision negotiated by initialize, or "" for
// a session that has not initialized (stateless clients never do).
func (ss *ServerSession) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

func (ss *ServerSession) initializedLegacy() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

// Handle implements transport.Handler.
func (ss *ServerSession) Handle(ctx context.Context, c *transport.Conn, r *transport.Request) {
	<-ss.connSet
	ss.handle(ctx, r)
}

// handle runs an incoming message: a request read by the connection's read
// loop, or one handed over by ServeDirect (r.IsDirect()), which runs on
// the caller's goroutine and is answered before handle returns.
func (ss *ServerSession) handle(ctx context.Context, r *transport.Request) {
	if ss.paramsOverBound(ctx, r) {
		return
	}
	if r.IsNotification() {
		ss.notification(r)
		return
	}
	// What the request holds, and its reply repeats: id, method, params.
	size := len(r.Params) + len(r.Method) + len(r.ID.Raw())
	if ok, busy := ss.admit(ctx, size); !ok {
		if busy {
			ss.busy(ctx, r)
		}
		return
	}
	if r.IsDirect() {
		ctx = admitted(ctx)
	}
	if orderedMethods[r.Method] {
		// State changes take effect before the next message is read, so a
		// request pipelined behind them sees them; only the reply waits.
		result, err := ss.dispatch(ctx, r)
		if r.IsDirect() {
			ss.reply(r, result, err, false)
			ss.leave(size)
			return
		}
		go func() {
			ss.reply(r, result, err, false)
			ss.leave(size)
		}()
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	inf := &inflight{cancel: cancel}
	ss.mu.Lock()
	if r.IsDirect() {
		// A stream refuses an id in use by a request in progress; a
		// transport that hands requests over directly may not. Two under
		// one id would share one entry: notifications/cancelled and the
		// session's end would miss the first.
		if _, dup := ss.running.Get(r.ID.Key()); dup {
			ss.mu.Unlock()
			cancel()
			ss.reply(r, nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: id " + r.ID.String() + " is already in use by a request in progress"}, false)
			ss.leave(size)
			return
		}
	}
	ss.running.Set(r.ID.Key(), inf)
	ss.mu.Unlock()
	if r.IsDirect() {
		ss.serve(ctx, inf, r)
		ss.leave(size)
		return
	}
	ss.spawn(func() {
		ss.serve(ctx, inf, r)
		ss.leave(size)
	})
}

// paramsOverBound refuses r, before anything decodes its params, when
// they would take more than ServerOptions.MaxParamsMemory decoded: a
// request is answered CodeInvalidParams, a notification dropped. It
// reports whether it did.
//
// Why here: every request and notification of every transport passes
// handle (the stream's read loop through Handle, mcphttp through
// ServeDirect) with its params still raw, so one check covers every
// method, and a refused request takes no in-flight slot. Params short
// enough that no shape could reach the bound cost a length test only.
func (ss *ServerSession) paramsOverBound(ctx context.Context, r *transport.Request) bool {
	limit := ss.srv.opts.MaxParamsMemory
	est, over := decodecost.Over(r.Params, limit)
	if !over {
		return false
	}
	ss.srv.log.Warn("mcp: params too large to decode", "method", methodText(r.Method), "bytes", len(r.Params), "estimate", est)
	if !r.IsNotification() {
		_ = ss.connFor(r).ReplyError(ctx, r, &Error{Code: CodeInvalidParams, Message: "invalid params: " + strconv.Itoa(len(r.Params)) +
			" bytes that would take about " + strconv.FormatInt(est, 10) + " bytes decoded, more than " +
			strconv.FormatInt(limit, 10) + " (ServerOptions.MaxParamsMemory)"})
	}
	return true
}

// spawn runs job on an idle worker, or on a new one. Workers outlive their
// request and wait for the next: a fresh goroutine per request would grow
// its stack through the JSON and schema call chains every time, and that
// showed as a fifth of the server's CPU. They end with the session.
func (ss *ServerSession) spawn(job func()) {
	select {
	case ss.work <- job:
	default:
		go ss.worker(job)
	}
}

func (ss *ServerSession) worker(job func()) {
	done := ss.doneChan()
	for {
		job()
		select {
		case job = <-ss.work:
		case <-done:
			return
		}
	}
}

// orderedMethods change session state and do no I/O: they run on the read
// loop, in arrival order.
var orderedMethods = map[string]bool{
	"initialize":            true,
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
}

func (ss *ServerSession) serve(ctx context.Context, inf *inflight, r *transport.Request) {
	result, err := ss.dispatch(ctx, r)
	inf.cancel()
	ss.mu.Lock()
	ss.running.Delete(r.ID.Key())
	cancelled := inf.cancelled
	ss.mu.Unlock()
	ss.reply(r, result, err, cancelled)
}

// reply answers r, or releases it if it was cancelled.
func (ss *ServerSession) reply(r *transport.Request, result any, err error, cancelled bool) {
	c := ss.connFor(r)
	switch {
	case cancelled:
		c.Release(r)
	case err != nil:
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		_ = c.ReplyError(context.Background(), r, e)
	default:
		if err := c.Reply(context.Background(), r, result); err != nil && !errors.Is(err, transport.ErrClosed) {
			ss.srv.log.Error("mcp: sending a result", "method", r.Method, "err", err)
		}
	}
}

func (ss *ServerSession) notification(r *transport.Request) {
	switch r.Method {
	case "notifications/cancelled":
		var p CancelledParams
		if json.Unmarshal(r.Params, &p) != nil {
			return
		}
		id, err := transport.ParseID(p.RequestID)
		if err != nil {
			return
		}
		ss.mu.Lock()
		if inf, ok := ss.running.Get(id.Key()); ok {
			inf.cancelled = true
			inf.cancel()
		}
		ss.mu.Unlock()
	case "notifications/initialized":
		ss.mu.Lock()
		ss.ready = true
		ss.mu.Unlock()
	}
}

// dispatch runs one request, turning a panic into an internal error.
func (ss *ServerSession) dispatch(ctx context.Context, r *transport.Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("mcp: handler panicked", "method", r.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: handler panicked: %v", p)}
		}
	}()
	h, ok := serverMethods[r.Method]
	if !ok {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + methodText(r.Method)}
	}
	return h(ss, ctx, r)
}

// callInfo is what a request says about its caller: from the session in
// the legacy era, from the request's own _meta in 2026-07-28.
type callInfo struct {
	version   string
	stateless bool
	client    *clientID // never nil; shared, never changed
	logLevel  LoggingLevel
	progress  any // progress token, nil if none
}

// info checks that a request may run in its era and says who sent it.
// A stateless request names its version in _meta; a legacy one needs an
// initialized session. pm is the protocol's part of the request's _meta
// (decodeRequest), meta the rest.
func (ss *ServerSession) info(method string, pm *protoMeta, meta Meta) (*callInfo, error) {
	ci := &callInfo{progress: meta.ProgressToken()}
	ss.mu.Lock()
	initialized, version := ss.initialized, ss.version
	ci.client, ci.logLevel = ss.client, ss.logLevel
	ss.mu.Unlock()
	if v := pm.version; pm.isString && !(initialized && v == version) {
		if !IsStateless(v) || !ss.srv.supports(v) {
			return nil, ss.srv.unsupported(v)
		}
		ci.version, ci.stateless = v, true
		ci.logLevel = ""
		ci.client = ss.statelessClient(pm)
		if l := LoggingLevel(pm.logLevel); l.valid() {
			ci.logLevel = l
		}
		return ci, nil
	}
	if pm.hasVersion && !initialized {
		return nil, ss.srv.unsupported(fmt.Sprint(pm.otherVersion))
	}
	if !initialized && method != "ping" {
		return nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: the session is not initialized; send initialize first, or use protocol version " + LatestVersion + " with its _meta"}
	}
	ci.version = version
	if ci.client == nil {
		ci.client = &noClient
	}
	return ci, nil
}

// statelessClient decodes the client info and capabilities of a stateless
// request's _meta, reusing the last decoding when their text is unchanged.
func (ss *ServerSession) statelessClient(pm *protoMeta) *clientID {
	ss.mu.Lock()
	w := ss.who
	ss.mu.Unlock()
	if w != nil && w.matches(pm) {
		return &w.clientID
	}
	// Over HTTP every stateless request is a session of its own, so the
	// server remembers the last decoding too: a client sends the same
	// info and capabilities with each request.
	if last := ss.srv.lastClient.Load(); last != nil && last.matches(pm) {
		w = last
	} else {
		// Copies: pm aliases the request's params.
		w = &statelessClient{rawInfo: bytes.Clone(pm.info), rawCaps: bytes.Clone(pm.caps)}
		if pm.info != nil {
			_ = json.Unmarshal(pm.info, &w.info)
		}
		if pm.caps != nil {
			_ = json.Unmarshal(pm.caps, &w.caps)
		}
		ss.srv.lastClient.Store(w)
	}
	ss.mu.Lock()
	ss.who = w
	ss.mu.Unlock()
	return &w.clientID
}

// matches reports whether a request's client info and capabilities are,
// as text, those w decoded. A client that sends the same values in other
// words costs a decoding, never a wrong match.
func (w *statelessClient) matches(pm *protoMeta) bool {
	return (pm.info == nil) == (w.rawInfo == nil) && bytes.Equal(pm.info, w.rawInfo) &&
		(pm.caps == nil) == (w.rawCaps == nil) && bytes.Equal(pm.caps, w.rawCaps)
}

// cloneJSON deep-copies a value decoded from JSON into an any.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = cloneJSON(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = cloneJSON(x)
		}
		return s
	}
	return v
}

// finish stamps a result with what its era requires: in 2026-07-28,
// resultType and the server's identity in _meta. env is the server's own
// (a result it built, or its copy of a handler's), but its Meta may be
// the handler's map, which the handler may hand to every call: the
// identity goes into a new map, never into that one.
func (ss *ServerSession) finish(ci *callInfo, env *ResultEnvelope) {
	if !ci.stateless {
		return
	}
	if env.ResultType == "" {
		env.ResultType = ResultComplete
	}
	env.Meta = ss.srv.withInfo(env.Meta)
}

// withInfo returns a new Meta holding m's entries and the server's
// identity: m may be a handler's, which the server never writes.
func (s *Server) withInfo(m Meta) Meta {
	out := make(Meta, len(m)+1)
	maps.Copy(out, m)
	out[MetaServerInfo] = s.implMeta
	return out
}

// serverInfoMeta is {MetaServerInfo: the server's Implementation}, the
// _meta of a stateless tool result without its own, as a struct that
// encoding/json encodes as it encoded the Implementation for implMeta: a
// json.RawMessage in its place (encoded once) cost an allocation and
// encoding/json's byte-by-byte check of it on every result.
type serverInfoMeta struct {
	ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"` // MetaServerInfo
}

// stampCallResult returns the wire form of a tool's result, stamped as
// finish stamps results. The stamps go on the wire form only: the result
// is the handler's, which may hand the same one to every call, and
// writing to it (its Meta map above all) would race. A result without
// _meta of its own, the common case, gets the server's _meta as a struct
// made once (Server.infoMeta) instead of a map to build per call.
func (ss *ServerSession) stampCallResult(ci *callInfo, res *CallToolResult) any {
	// The common result is written here, bytes that encoding/json
	// would write (appendCallResultFast), stamped or not.
	if !ci.stateless {
		if b, ok := appendCallResultFast(nil, res); ok {
			return json.RawMessage(b)
		}
	} else if b, ok := appendCallResultStamped(nil, res, ss.srv.infoMetaJSON); ok {
		return json.RawMessage(b)
	}
	w := res.wireStruct()
	if ci.stateless {
		if w.ResultType == "" {
			w.ResultType = ResultComplete
		}
		if res.Meta == nil {
			w.Meta = ss.srv.infoMeta
		} else {
			w.Meta = ss.srv.withInfo(res.Meta)
		}
	}
	return w.form(res)
}

// methodText is an unknown method's name as an error repeats it: cut at
// 128 bytes, since the name is the peer's and may be as long as a message.
func methodText(m string) string {
	const max = 128
	if len(m) <= max {
		return m
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + "…"
}

// clone deep-copies an Implementation.
func (impl Implementation) clone() Implementation {
	if impl.Icons != nil {
		icons := make([]Icon, len(impl.Icons))
		for i, ic := range impl.Icons {
			ic.Sizes = slices.Clone(ic.Sizes)
			icons[i] = ic
		}
		impl.Icons = icons
	}
	return impl
}

// clone deep-copies ClientCapabilities.
func (c ClientCapabilities) clone() ClientCapabilities {
	if c.Roots != nil {
		r := *c.Roots
		c.Roots = &r
	}
	if c.Sampling != nil {
		s := SamplingCapability{Context: cloneMap(c.Sampling.Context), Tools: cloneMap(c.Sampling.Tools)}
		c.Sampling = &s
	}
	if c.Elicitation != nil {
		e := ElicitationCapability{}
		if c.Elicitation.Form != nil {
			e.Form = &struct{}{}
		}
		if c.Elicitation.URL != nil {
			e.URL = &struct{}{}
		}
		c.Elicitation = &e
	}
	c.Experimental = cloneMaps(c.Experimental)
	c.Extensions = cloneMaps(c.Extensions)
	c.Tasks = cloneMap(c.Tasks)
	return c
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return cloneJSON(m).(map[string]any)
}

func cloneMaps(m map[string]map[string]any) map[string]map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneMap(v)
	}
	return out
}
