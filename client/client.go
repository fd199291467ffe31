package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/internal/closinglog"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// Errors a call can fail with, besides *mcp.Error.
var (
	// ErrTimeout: no response within the timeout.
	ErrTimeout = transport.ErrTimeout
	// ErrClosed: the connection closed; the error carries the cause.
	ErrClosed = transport.ErrClosed
)

// Options configure a Client. The zero value is ready to use.
type Options struct {
	// ClientInfo identifies the client; nil means "winbridge".
	ClientInfo *mcp.Implementation
	// Capabilities are offered to the server.
	Capabilities mcp.ClientCapabilities
	// ProtocolVersion selects the revision. Empty: try 2026-07-28 with a
	// server/discover probe and fall back to initialize with the newest
	// legacy revision, as peers do. A legacy revision: initialize with it.
	// 2026-07-28: stateless only; a server that cannot speak it is an error.
	ProtocolVersion string
	// Timeout bounds each call whose context has no deadline; zero means
	// 60 s, negative means none. It bounds the whole call the caller
	// made, however many requests it takes: every page of ListTools (and
	// the other lists), every round of a multi round-trip CallTool,
	// GetPrompt or ReadResource, and the awaiting of a task the server
	// makes of a CallTool share one deadline, as does the time the
	// OnSampling, OnElicitation and OnRoots handlers take within it (as in
	// the legacy era, where they answer during the call). A server that
	// pages or asks again and again, slowly, thus cannot hold a call for
	// a multiple of Timeout. Polling a task with ToolTask.Await is bounded
	// per tasks/get; the task by its TTL and the caller's context.
	Timeout time.Duration
	// LogLevel asks the server for log messages of this level and above:
	// logging/setLevel after initialize, or _meta in 2026-07-28.
	LogLevel mcp.LoggingLevel
	// OnLog receives the server's log messages. It, OnToolsChanged,
	// OnResourcesChanged, OnPromptsChanged and OnResourceUpdated run on
	// the connection's read loop, one notification at a time in the
	// order the server sent them: they must not block, for no response
	// is read meanwhile (a slow one holds every call on the connection,
	// and a server that floods notifications waits for them, which is
	// what bounds the flood). Hand slow work to a goroutine of your own,
	// coalescing: a server may send list changes without end.
	OnLog func(*mcp.LoggingMessageParams)
	// OnToolsChanged is called when the server says its tool list changed.
	// In 2026-07-28 that comes only on a subscriptions/listen the client
	// holds open while a callback or a Subscribe needs one (listen.go);
	// after a listen had to be opened again, each list callback it serves
	// is called once, for what may have changed in between.
	OnToolsChanged func()
	// OnResourcesChanged and OnPromptsChanged likewise, for resources and
	// prompts.
	OnResourcesChanged, OnPromptsChanged func()
	// OnResourceUpdated receives notifications/resources/updated for
	// subscribed resources.
	OnResourceUpdated func(uri string)
	// OnSampling, OnElicitation and OnRoots answer what the server asks of
	// the client; setting one declares the capability. A handler's context
	// ends when the server cancels its request (the answer is then not
	// sent) or the connection closes.
	OnSampling    SamplingHandler
	OnElicitation ElicitationHandler
	OnRoots       RootsHandler
	// OnSamplingRaw and OnElicitationRaw take the place of OnSampling and
	// OnElicitation for a proxy that passes the server's requests on:
	// they get the params as the server sent them (once they decode as
	// the typed handler's would) and their result is sent as it is, so
	// that numbers the typed forms read as float64 pass exactly (in the
	// legacy era: a 2026-07-28 server's questions, inside a result, reach
	// them decoded and encoded again). Setting one declares the
	// capability; the client fills in no elicitation defaults for it (the
	// client it asks does).
	OnSamplingRaw, OnElicitationRaw RawHandler
	// MaxServerRequests bounds how many of the server's requests to the
	// client (ping, sampling, elicitation, roots, unknown methods) are
	// answered at once (zero: DefaultMaxServerRequests, 8), and
	// MaxQueuedServerRequests how many more wait for their turn (zero:
	// DefaultMaxQueuedServerRequests, 64). A request beyond both is
	// answered at once with a CodeBusy (-32000) error: a server that floods
	// the client costs it no more than that many handlers and goroutines.
	MaxServerRequests, MaxQueuedServerRequests int
	// DisableTasks keeps the client from declaring the tasks extension
	// (2026-07-28): servers then answer task-supporting tools at once, and
	// fail tools that run only as tasks. By default CallTool awaits the
	// tasks servers create, and StartTool hands them out.
	DisableTasks bool
	// MaxListBytes bounds the pages of one list (ListTools, ListResources,
	// ListResourceTemplates, ListPrompts, and so the Manager's Tools)
	// together: their bytes as received, plus the size of the struct
	// each item is decoded into, counted before it is decoded; beyond it
	// the list fails with ErrListTooLarge. Zero means DefaultMaxListBytes
	// (64 MiB). Without it a server whose cursors never end could make
	// the client gather 10000 pages of the largest message size; counted
	// in bytes alone, a page of empty items ("{}") took fifty times it.
	MaxListBytes int64
	// MaxResultMemory bounds what one result may take once decoded, as
	// estimated from its bytes before anything decodes it (each object,
	// array, member, element and string charged the most it can cost);
	// beyond it the call fails with ErrResultTooLarge. Zero means
	// DefaultMaxResultMemory (256 MiB), negative no bound. Counted in
	// bytes alone, a result of nested empty objects ("icons":[{},{},…])
	// took thirty times the 32 MiB a message may have.
	MaxResultMemory int64
	// Logger receives the client's diagnostics; nil means slog.Default().
	Logger *slog.Logger

	// timeoutSetting names where Timeout came from, for its error (a
	// Manager sets the config's timeoutMs); empty means Options.Timeout.
	timeoutSetting string
}

// timeout is the bound of a call without a deadline: Timeout, or the
// transport's default; zero for none.
func (o *Options) timeout() time.Duration {
	switch {
	case o.Timeout < 0:
		return 0
	case o.Timeout == 0:
		return transport.DefaultTimeout
	}
	return o.Timeout
}

func (o *Options) timeoutName() string {
	if o.timeoutSetting != "" {
		return o.timeoutSetting
	}
	if o.Timeout == 0 {
		return "client.Options.Timeout, default"
	}
	return "client.Options.Timeout"
}

// Client is a connection to one MCP server.
type Client struct {
	conn *transport.Conn
	opts Options
	info mcp.Implementation
	// metaInfo and metaCaps are info and the capabilities, encoded.
	metaInfo, metaCaps json.RawMessage
	// log goes silent when Close returns (logs): the listen loop and the
	// connection's read loop learn of the close a moment later, and
	// logged then to a handler the caller had let go of (mcpc's stderr
	// buffer, read once it returned, raced with them).
	log  *slog.Logger
	logs *closinglog.Handler

	// metaJSON is the whole _meta of a stateless request without a
	// progress token or entries of the caller's: the same on every call.
	metaJSON json.RawMessage

	version      string
	stateless    bool
	serverInfo   mcp.Implementation
	capabilities mcp.ServerCapabilities
	instructions string

	pool *serverRequests // answers the server's requests
	// served cancels, by id key, the server's requests in the pool, for
	// its notifications/cancelled (serve); under mu, at most as many as
	// the pool holds.
	served map[string]context.CancelCauseFunc

	// timeoutErr is the cause of a call's end at the client's timeout,
	// made once instead of per call.
	timeoutErr error

	tokens   atomic.Uint64
	mu       sync.Mutex
	progress map[string]func(*mcp.ProgressParams)

	// listen holds a 2026-07-28 subscriptions/listen open (listen.go).
	listen listenState
	// cbMu keeps the list and update callbacks one at a time: the read
	// loop calls them, and so does the listen loop after a listen was
	// re-established.
	cbMu sync.Mutex
}

// Connect starts a client on stream and performs the handshake of the
// chosen protocol era, all of it within Options.Timeout when ctx has no
// deadline. On failure the stream is closed.
func Connect(ctx context.Context, stream *transport.Stream, opts *Options) (*Client, error) {
	c := &Client{progress: map[string]func(*mcp.ProgressParams){}, served: map[string]context.CancelCauseFunc{}}
	if opts != nil {
		c.opts = *opts
	}
	c.info = mcp.Implementation{Name: "winbridge", Version: "0.1.0"}
	if c.opts.ClientInfo != nil {
		c.info = *c.opts.ClientInfo
	}
	c.opts.Capabilities = c.opts.capabilities()
	// In 2026-07-28 both go in the _meta of every request: encoded once
	// here, they are spliced in as they are.
	c.metaInfo, _ = json.Marshal(c.info)
	c.metaCaps, _ = json.Marshal(c.opts.statelessCapabilities())
	base := c.opts.Logger
	if base == nil {
		base = slog.Default()
	}
	c.logs = closinglog.New(base.Handler())
	c.log = slog.New(c.logs)
	if d := c.opts.timeout(); d > 0 {
		c.timeoutErr = fmt.Errorf("%w after %v (%s)", ErrTimeout, d, c.opts.timeoutName())
	}
	c.pool = newServerRequests(c.opts.MaxServerRequests, c.opts.MaxQueuedServerRequests)
	c.conn = transport.NewConn(stream, transport.HandlerFunc(c.handle), &transport.ConnOptions{
		Timeout:   c.opts.Timeout,
		Logger:    c.log,
		Abandoned: mcp.NotifyCancelled,
		// Every result the client decodes passes here first.
		CheckResult: c.checkResult,
	})
	// The handshake is one call: its requests (the server/discover probe,
	// initialize, logging/setLevel) share one timeout, or a server
	// answering each just in time would hold Connect for three times it.
	hctx, cancel := c.bound(ctx, callOptions{})
	err := c.handshake(hctx)
	if err == nil {
		// Changes made once Connect returns are heard: the first listen
		// is acknowledged (or has failed; it is then retried) first.
		c.startListening()
		c.firstListen(hctx)
	}
	cancel()
	if err != nil {
		// Close, not just the connection: its read loop may be logging
		// as the handshake gives up, and the caller may let go of
		// Options.Logger once Connect returns.
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Client) handshake(ctx context.Context) error {
	want := c.opts.ProtocolVersion
	if want == "" || mcp.IsStateless(want) {
		v := want
		if v == "" {
			v = mcp.LatestVersion
		}
		err := c.discover(ctx, v)
		if err == nil || want != "" {
			return err
		}
		var rpcErr *mcp.Error
		if !errors.As(err, &rpcErr) {
			return err // the connection failed, not the probe
		}
		c.log.Debug("mcp client: server/discover refused; falling back to initialize", "err", err)
		want = mcp.LatestLegacyVersion
	}
	return c.initialize(ctx, want)
}

func (c *Client) discover(ctx context.Context, version string) error {
	c.version, c.stateless = version, true
	c.metaJSON = c.statelessMeta()
	var res mcp.DiscoverResult
	if err := c.call(ctx, "server/discover", &mcp.RequestParams{}, &res); err != nil {
		c.version, c.stateless = "", false
		return methodErr("server/discover", err)
	}
	supported := false
	for _, v := range res.SupportedVersions {
		supported = supported || v == version
	}
	if !supported {
		c.version, c.stateless = "", false
		// The server's list, quoted and cut: it is the server's text, as
		// long as a message may be.
		return &mcp.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: fmt.Sprintf("server does not support %s (it supports %s)", version, truncate(fmt.Appendf(nil, "%q", res.SupportedVersions), 256))}
	}
	c.capabilities, c.instructions = res.Capabilities, res.Instructions
	res.Meta.DecodeEntry(mcp.MetaServerInfo, &c.serverInfo)
	return nil
}

func (c *Client) initialize(ctx context.Context, version string) error {
	var res mcp.InitializeResult
	err := c.conn.Call(ctx, "initialize", &mcp.InitializeParams{
		ProtocolVersion: version,
		Capabilities:    c.opts.Capabilities,
		ClientInfo:      c.info,
	}, &res)
	if err != nil {
		return methodErr("initialize", err)
	}
	supported := false
	for _, v := range mcp.SupportedVersions {
		supported = supported || (v == res.ProtocolVersion && !mcp.IsStateless(v))
	}
	if !supported {
		return fmt.Errorf("initialize: server chose protocol version %s, which this client does not speak", truncate(strconv.AppendQuote(nil, res.ProtocolVersion), 64))
	}
	c.version, c.serverInfo, c.capabilities, c.instructions = res.ProtocolVersion, res.ServerInfo, res.Capabilities, res.Instructions
	if err := c.conn.Notify(ctx, "notifications/initialized", &struct{}{}); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if c.opts.LogLevel != "" && c.capabilities.Logging != nil {
		if err := c.conn.Call(ctx, "logging/setLevel", &mcp.SetLevelParams{Level: c.opts.LogLevel}, nil); err != nil {
			return methodErr("logging/setLevel", err)
		}
	}
	return nil
}

// methodErr names the method in the error of a call, unless the
// transport did: it names it in every error but an error response from the
// peer, and naming it twice reads as "server/discover: server/discover:".
func methodErr(method string, err error) error {
	if rpc, ok := err.(*mcp.Error); ok {
		return fmt.Errorf("%s: %w", method, rpc)
	}
	return err
}

// ProtocolVersion returns the revision in use.
func (c *Client) ProtocolVersion() string { return c.version }

// ServerInfo returns the server's self-description.
func (c *Client) ServerInfo() mcp.Implementation { return c.serverInfo }

// Capabilities returns the server's capabilities.
func (c *Client) Capabilities() mcp.ServerCapabilities { return c.capabilities }

// Instructions returns the server's instructions for the model.
func (c *Client) Instructions() string { return c.instructions }

// Close closes the connection; pending calls fail with ErrClosed. Once it
// returns, the client logs nothing more to Options.Logger.
func (c *Client) Close() error {
	err := c.conn.Close()
	c.logs.Close()
	return err
}

// closeWithError closes the connection with err for its cause, and
// silences Options.Logger, as Close does: a Process closes its client
// this way, and its caller may let go of the logger once it returns.
func (c *Client) closeWithError(err error) {
	c.conn.CloseWithError(err)
	c.logs.Close()
}

// Done is closed when the connection has closed.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Conn returns the underlying connection, for methods this package has no
// typed call for.
func (c *Client) Conn() *transport.Conn { return c.conn }

// handle answers the server's requests and notifications.
func (c *Client) handle(ctx context.Context, conn *transport.Conn, r *transport.Request) {
	// The server's params are held to the bound of its results: a log
	// message's data or a request's _meta of nested empty objects takes
	// as much memory decoded. Dropped or refused before anything decodes
	// them.
	if err := c.checkResult(r.Method, r.Params); err != nil {
		c.log.Warn("mcp client: server message refused", "method", truncate([]byte(r.Method), 128), "err", err)
		if !r.IsNotification() {
			c.serve(ctx, conn, r, func(context.Context) (any, error) {
				return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: err.Error()}
			})
		}
		return
	}
	switch r.Method {
	case "ping":
		c.serve(ctx, conn, r, func(context.Context) (any, error) { return struct{}{}, nil })
	case "sampling/createMessage", "elicitation/create", "roots/list":
		c.serve(ctx, conn, r, func(ctx context.Context) (any, error) { return c.serveInput(ctx, r) })
	case "notifications/cancelled":
		c.cancelServed(r.Params)
	case "notifications/progress":
		var p mcp.ProgressParams
		if json.Unmarshal(r.Params, &p) != nil {
			return
		}
		c.mu.Lock()
		f := c.progress[tokenKey(p.ProgressToken)]
		c.mu.Unlock()
		if f != nil {
			f(&p)
		}
	case "notifications/message":
		var p mcp.LoggingMessageParams
		if c.opts.OnLog != nil && json.Unmarshal(r.Params, &p) == nil {
			c.opts.OnLog(&p)
		}
	case "notifications/tools/list_changed":
		c.callback(c.opts.OnToolsChanged)
	case "notifications/resources/list_changed":
		c.callback(c.opts.OnResourcesChanged)
	case "notifications/prompts/list_changed":
		c.callback(c.opts.OnPromptsChanged)
	case "notifications/resources/updated":
		var p mcp.ResourceUpdatedParams
		if c.opts.OnResourceUpdated != nil && json.Unmarshal(r.Params, &p) == nil {
			c.callback(func() { c.opts.OnResourceUpdated(p.URI) })
		}
	case "notifications/subscriptions/acknowledged":
		c.onAcknowledged(r.Params)
	default:
		if !r.IsNotification() {
			c.serve(ctx, conn, r, func(context.Context) (any, error) {
				return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: " + truncate([]byte(r.Method), 128)}
			})
		}
	}
}

// callback calls f, if set, one at a time with the other list and update
// callbacks.
func (c *Client) callback(f func()) {
	if f == nil {
		return
	}
	c.cbMu.Lock()
	defer c.cbMu.Unlock()
	f()
}

// tokenKey is the map key of a progress token as sent or as echoed: tokens
// we send are strings, but a server may echo them decoded into any type.
func tokenKey(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return fmt.Sprint(t)
}
