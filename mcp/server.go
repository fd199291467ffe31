package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/internal/shardset"
	"github.com/winbridge/winbridge/transport"
)

// ServerOptions configure a Server. The zero value is ready to use.
type ServerOptions struct {
	// Instructions tell the client's model how to use the server.
	Instructions string
	// Logger receives the server's diagnostics; nil means slog.Default().
	// Over stdio, slog's default handler writes to stderr, never stdout.
	Logger *slog.Logger
	// MaxConcurrency bounds how many handlers of one session (tool calls,
	// prompts/get, resources/read: the user code) run at once; further
	// requests wait for a slot, and a cancelled one stops waiting. Zero
	// means 64. Requests are served by reused worker goroutines, not one
	// new goroutine each.
	MaxConcurrency int
	// MaxInFlight bounds the requests of one session that are being
	// handled or whose replies are not yet written; zero means
	// DefaultMaxInFlight (256). At the bound the session stops reading its
	// input until a request completes (backpressure): a client that sends
	// requests without reading the replies holds up only itself. While a
	// handler waits on the client (sampling, elicitation, roots, an open
	// subscriptions/listen), further requests are instead answered at once
	// with CodeServerBusy, so that the responses and cancellations it waits
	// for are still read. A value below MaxConcurrency also caps
	// concurrent tool calls.
	MaxInFlight int
	// MaxInFlightBytes bounds the bytes (id, method and params) the
	// requests in flight of one session hold, together; zero means DefaultMaxInFlightBytes (64 MiB).
	// Beyond it the session stops reading (or answers CodeServerBusy) as
	// at MaxInFlight: without it, MaxInFlight requests of the largest
	// message size (transport.NewLineFramer's maxSize, 32 MiB) would hold
	// 8 GiB. A single request larger than the bound still runs when it is
	// the only one in flight.
	MaxInFlightBytes int64
	// MaxParamsMemory bounds what one request's or notification's params
	// may take once decoded, as estimated from their shape before
	// anything decodes them: nested empty objects ([{},{},...]) decode to
	// thirty to a hundred times their bytes, so arguments or a _meta of
	// them within the 32 MiB message bound would take a gigabyte or more.
	// A request over it is refused with CodeInvalidParams naming this
	// option, and a notification dropped. Zero means
	// DefaultMaxParamsMemory (80 MiB); a negative value means no bound.
	// The client's results of the server's own requests (sampling,
	// elicitation, roots) are held to it as well: over it, CreateMessage,
	// Elicit and ListRoots fail with ErrClientResultTooLarge.
	// Text, the usual large argument, is estimated at about twice its
	// bytes; params under MaxParamsMemory/320 bytes are never scanned.
	MaxParamsMemory int64
	// ShutdownTimeout bounds how long Run waits, once the session has
	// ended (end of input, or ctx done), for the handlers it cancelled to
	// return: a tool that ran a process tree kills it on cancellation, and
	// a program that exits as soon as Run returns would otherwise leave it
	// running. ServerSession.Wait, which mcphttp.Handler.Shutdown uses
	// for every HTTP session, waits as long. Zero means
	// DefaultShutdownTimeout (10 s); a negative value means no wait.
	ShutdownTimeout time.Duration
	// MaxSubscriptions bounds the resource URIs one legacy session may be
	// subscribed to (resources/subscribe); a new URI beyond it is refused
	// with CodeInvalidParams, so a client cannot grow the session's memory
	// by subscribing to ever new URIs. It also bounds the resources one
	// subscriptions/listen request may name. Zero means
	// DefaultMaxSubscriptions (1024).
	MaxSubscriptions int
	// MaxListeners bounds the subscriptions/listen requests open at once
	// over all sessions: each holds its filter, and every resource update
	// and list change is matched against the open ones. One beyond it is
	// refused with CodeServerBusy, naming the bound. Zero means
	// DefaultMaxListeners (256).
	MaxListeners int
	// MaxListenersPerPrincipal bounds those of one principal
	// (ServerSession.BindPrincipal; behind mcphttp.RequireAuth the
	// token's subject and client), so that one user cannot hold every
	// place; listeners without a principal share MaxListeners only. Zero
	// means a quarter of MaxListeners, at least 1; negative means no
	// bound of its own.
	MaxListenersPerPrincipal int
	// PageSize is how many items a list result holds; zero means 100.
	PageSize int
	// Versions are the protocol revisions offered, newest first; nil means
	// SupportedVersions.
	Versions []string
	// CacheTTL is the ttlMs hint of cacheable 2026-07-28 results (tool lists,
	// discovery). Zero tells clients not to cache, which is right while tools
	// may change at run time.
	CacheTTL time.Duration
	// Timeout bounds the server's own requests to the client; zero means
	// transport.DefaultTimeout.
	Timeout time.Duration
	// StateKey signs the requestState of multi round-trip requests
	// (2026-07-28), so that the server can tell that a client has not
	// altered it. Nil means a random key per Server; replicas behind a load
	// balancer need the same key.
	StateKey []byte
	// TaskStore keeps the tasks of tool calls that run in the background
	// (the io.modelcontextprotocol/tasks extension); nil means a
	// MemoryTaskStore of MaxTasks tasks.
	TaskStore TaskStore
	// MaxTasks bounds the tasks the default store holds, running or
	// finished within their TTL; zero means DefaultMaxTasks (1024). At the
	// bound, calls that would start a task fail with CodeServerBusy. A
	// task whose handler ignores its context still counts after its
	// cancellation, its TTL or its session's end, until the handler
	// returns: it holds a goroutine all the while. Whatever the store,
	// it also bounds the handlers of tasks running in this process.
	MaxTasks int
	// MaxTasksPerPrincipal bounds the tasks of one authorized principal in
	// the default store (see MemoryTaskStore.MaxPerPrincipal), and the
	// handlers of its tasks running in this process, as MaxTasks does;
	// zero means a quarter of MaxTasks, negative means no bound of its
	// own.
	MaxTasksPerPrincipal int
	// MaxTaskResultMemory bounds the bytes of the results the default
	// store holds together (encoded), and a quarter of it those of one
	// authorized principal; zero means DefaultMaxTaskResultMemory
	// (256 MiB), negative means no bound. A task's result is held for
	// its TTL, not sent and freed as a call's is: a task whose result
	// does not fit fails with CodeServerBusy. A custom TaskStore bounds
	// what it holds itself.
	MaxTaskResultMemory int64
	// TaskTTL is how long a task and its result are kept after the task
	// was created; a task still running then is cancelled. Zero means
	// DefaultTaskTTL (1 hour).
	TaskTTL time.Duration
	// TaskPollInterval is the interval at which the server suggests that
	// clients poll tasks/get; zero means DefaultTaskPollInterval (1 s).
	TaskPollInterval time.Duration
	// StateKeys, if set, replaces StateKey: a keyring shared by replicas,
	// whose first key seals and whose older keys still open what they
	// sealed, so keys can be rotated without failing requests in flight.
	StateKeys Keyring
	// Bus, if set, carries list changes and resource updates to every
	// replica of this server, so that a change made on one reaches the
	// subscriptions/listen streams and legacy sessions of all. Nil means
	// one process: changes reach this Server's sessions directly.
	Bus Bus
	// CompletionHandler answers completion/complete for prompt arguments
	// and resource template variables; nil means no completions capability.
	CompletionHandler CompletionHandler
	// UnknownTool, if set, answers tools/call of a name no tool has, as
	// an unchecked tool (see AddToolRaw), instead of the -32602 error. A
	// proxy uses it to answer with a tool error of its own and record the
	// call.
	UnknownTool ToolHandler
	// Subscribe, if set, is called with each resources/subscribe
	// (subscribe true) and resources/unsubscribe of a legacy session
	// before the session's subscriptions change; an error fails the
	// request and changes nothing. It runs on the session's read loop, so
	// that subscriptions change in the order they were asked: it must not
	// block (a proxy that subscribes where the resource comes from does so
	// in the background).
	Subscribe func(ctx context.Context, ss *ServerSession, uri string, subscribe bool) error
}

// Server is an MCP server: tools, resources and resource templates,
// prompts and completions, served to any number of sessions, each on its
// own connection, in both protocol eras (a legacy session after initialize,
// and stateless 2026-07-28 requests, even on the same connection). Its
// methods are safe for concurrent use; features added or removed while
// sessions are open are announced to them with list_changed.
type Server struct {
	impl Implementation
	opts ServerOptions
	log  *slog.Logger

	// implMeta is impl as a _meta value, encoded once: every stateless
	// result carries it, and boxing and encoding the struct each time
	// cost allocations and reflection per result. Read-only.
	implMeta json.RawMessage
	// infoMeta is {MetaServerInfo: impl}: the _meta of a stateless tool
	// result that has none of its own. Read-only.
	infoMeta *serverInfoMeta
	// infoMetaJSON is infoMeta as encoding/json encodes it, for
	// appendCallResultStamped. Read-only.
	infoMetaJSON []byte

	tools     registry[*serverTool]
	resources registry[*serverResource]
	templates registry[*serverTemplate]
	prompts   registry[*serverPrompt]
	skills    registry[*serverSkill]
	stateKey  []byte
	stateNow  func() time.Time // the clock of requestState lifetimes; nil: time.Now (tests set it)
	tasks     TaskStore

	taskMu   sync.Mutex
	taskRuns map[string]*taskRun // tasks running in this process
	// sessionTasks are the IDs of each legacy session's tasks, for
	// tasks/list, in creation order.
	sessionTasks map[*ServerSession][]string
	// counted are the tasks that count against MaxTasks and
	// MaxTasksPerPrincipal here (Server.count), by ID, and countedBy
	// how many of them each principal has. The store's count alone let a
	// task whose handler ignores its context stop counting once its TTL
	// passed or its session ended, while its goroutine ran on.
	counted   map[string]*taskRun
	countedBy map[string]int
	// taskMax and taskMaxPer are MaxTasks and MaxTasksPerPrincipal with
	// their defaults applied; taskMaxPer <= 0: no bound per principal.
	taskMax, taskMaxPer int
	// resultBytes and resultBytesBy are the bytes of the results the
	// default store holds, all and by principal, against
	// MaxTaskResultMemory (resultMax; resultMax <= 0: no bound).
	resultBytes   int64
	resultBytesBy map[string]int64
	resultMax     int64
	taskReturned  func() // tests: called once a task's handler has returned

	// lastClient is the last stateless client info and capabilities
	// decoded, shared by the sessions of one request each (HTTP).
	lastClient atomic.Pointer[statelessClient]

	sessions shardset.Set[*ServerSession] // live sessions

	mu        sync.RWMutex
	listeners map[*listener]struct{} // open subscriptions/listen requests
	byURI     map[string][]*listener // the listeners that asked for each resource URI
	// listenCount counts the listeners, from before their
	// acknowledgement, for MaxListeners; listenBy those of each
	// principal, for MaxListenersPerPrincipal.
	listenCount int
	listenBy    map[string]int
}

// NewServer returns a server that identifies itself as impl.
func NewServer(impl *Implementation, opts *ServerOptions) *Server {
	s := &Server{listeners: map[*listener]struct{}{}, byURI: map[string][]*listener{}, listenBy: map[string]int{}}
	if impl != nil {
		s.impl = *impl
	}
	s.implMeta, _ = json.Marshal(s.impl) // plain strings and slices: it cannot fail
	info := s.impl.clone()               // the caller's icons may change
	s.infoMeta = &serverInfoMeta{ServerInfo: &info}
	s.infoMetaJSON, _ = json.Marshal(s.infoMeta) // as implMeta: it cannot fail
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxConcurrency <= 0 {
		s.opts.MaxConcurrency = 64
	}
	if s.opts.MaxInFlight <= 0 {
		s.opts.MaxInFlight = DefaultMaxInFlight
	}
	if s.opts.MaxInFlightBytes <= 0 {
		s.opts.MaxInFlightBytes = DefaultMaxInFlightBytes
	}
	if s.opts.MaxParamsMemory == 0 {
		s.opts.MaxParamsMemory = DefaultMaxParamsMemory
	}
	if s.opts.MaxSubscriptions <= 0 {
		s.opts.MaxSubscriptions = DefaultMaxSubscriptions
	}
	if s.opts.MaxListeners <= 0 {
		s.opts.MaxListeners = DefaultMaxListeners
	}
	if s.opts.MaxListenersPerPrincipal == 0 {
		s.opts.MaxListenersPerPrincipal = max(1, s.opts.MaxListeners/4)
	}
	if s.opts.ShutdownTimeout == 0 {
		s.opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.Versions == nil {
		s.opts.Versions = SupportedVersions
	}
	s.tasks = s.opts.TaskStore
	if s.tasks == nil {
		s.tasks = &MemoryTaskStore{Max: s.opts.MaxTasks, MaxPerPrincipal: s.opts.MaxTasksPerPrincipal}
	}
	if s.opts.TaskTTL <= 0 {
		s.opts.TaskTTL = DefaultTaskTTL
	}
	if s.opts.TaskPollInterval <= 0 {
		s.opts.TaskPollInterval = DefaultTaskPollInterval
	}
	s.taskRuns = map[string]*taskRun{}
	s.counted, s.countedBy = map[string]*taskRun{}, map[string]int{}
	s.taskMax = s.opts.MaxTasks
	if s.taskMax <= 0 {
		s.taskMax = DefaultMaxTasks
	}
	s.taskMaxPer = s.opts.MaxTasksPerPrincipal
	if s.taskMaxPer == 0 {
		s.taskMaxPer = max(1, s.taskMax/4)
	}
	s.resultBytesBy = map[string]int64{}
	s.resultMax = s.opts.MaxTaskResultMemory
	if s.resultMax == 0 {
		s.resultMax = DefaultMaxTaskResultMemory
	}
	s.sessionTasks = map[*ServerSession][]string{}
	s.stateKey = s.opts.StateKey
	if s.stateKey == nil {
		s.stateKey = newStateKey()
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.opts.Bus != nil {
		// For the Server's lifetime: a Server has no Close, and the bus
		// ends its subscriptions when it is closed itself.
		s.opts.Bus.Subscribe(func(c Change) { s.deliverChange(context.Background(), c) })
	}
	return s
}

// Run serves one connection on stream until the peer closes it or ctx ends.
// It returns nil when the peer went away, ctx.Err() when ctx ended.
//
// Either way the session's handlers have their contexts cancelled, and Run
// returns only once they have all returned, or after
// ServerOptions.ShutdownTimeout: a program that exits when Run returns
// leaves no tool's process tree behind.
func (s *Server) Run(ctx context.Context, stream *transport.Stream) error {
	ss := s.Connect(stream)
	var err error
	select {
	case <-ss.Done():
	case <-ctx.Done():
		ss.Close()
		<-ss.Done()
		err = ctx.Err()
	}
	_ = ss.awaitHandlers(context.Background(), s.opts.ShutdownTimeout)
	return err
}

// Connect starts serving a session on stream and returns at once.
func (s *Server) Connect(stream *transport.Stream) *ServerSession {
	ss := newServerSession(s)
	defer close(ss.connSet) // the read loop starts inside NewConn, before conn is set
	ss.conn = s.newConn(ss, stream)
	ss.shard, _ = s.sessions.Add(ss)
	go func() {
		<-ss.conn.Done()
		ss.ended()
	}()
	return ss
}

// newConn starts the connection of session ss on stream.
func (s *Server) newConn(ss *ServerSession, stream *transport.Stream) *transport.Conn {
	return transport.NewConn(stream, ss, &transport.ConnOptions{
		Timeout:   s.opts.Timeout,
		Logger:    s.log,
		Abandoned: NotifyCancelled,
	})
}

// ended runs the session's end, once its connection has closed (or, for
// a ConnectDirect session that never started one, once it is closed).
func (ss *ServerSession) ended() {
	ss.endOnce.Do(func() {
		// Out of Sessions before Done closes: a caller that saw Done
		// found the session still listed (TestConnectServer, under load).
		ss.srv.sessions.Remove(ss, ss.shard)
		ss.closed()
	})
}

// Sessions returns the sessions being served.
func (s *Server) Sessions() []*ServerSession {
	return s.sessions.All()
}

// NotifyCancelled tells the peer with notifications/cancelled that a request
// was given up. It has the signature of transport.ConnOptions.Abandoned, which
// is where servers and clients install it.
func NotifyCancelled(c *transport.Conn, id transport.ID, method string, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Notify(ctx, "notifications/cancelled", &CancelledParams{RequestID: id.Raw(), Reason: cause.Error()})
}

// capabilities are what the server offers now: tools and logging always,
// resources, prompts and completions once something provides them.
func (s *Server) capabilities() ServerCapabilities {
	c := ServerCapabilities{
		Tools:   &ToolsCapability{ListChanged: true},
		Logging: &struct{}{},
	}
	if s.resources.len() > 0 || s.templates.len() > 0 {
		c.Resources = &ResourcesCapability{Subscribe: true, ListChanged: true}
	}
	if s.prompts.len() > 0 {
		c.Prompts = &PromptsCapability{ListChanged: true}
	}
	if s.opts.CompletionHandler != nil {
		c.Completions = &struct{}{}
	}
	return c
}

func (s *Server) cacheHint() CacheHint {
	return CacheHint{TTLMs: Ptr(s.opts.CacheTTL.Milliseconds()), CacheScope: "public"}
}

// addTool registers st, replacing a tool of the same name.
func (s *Server) addTool(st *serverTool) {
	if !PortableToolName(st.tool.Name) {
		s.log.Warn("mcp: tool name outside ^[a-zA-Z0-9_-]{1,64}$: Claude Desktop withholds the whole tool list for it, OpenAI and Codex reject it",
			"tool", st.tool.Name)
	}
	s.tools.add(st.tool.Name, st)
	s.changed("notifications/tools/list_changed")
}

// RemoveTools removes the named tools; names not registered are ignored.
func (s *Server) RemoveTools(names ...string) {
	if s.tools.remove(names...) {
		s.changed("notifications/tools/list_changed")
	}
}

// changed tells every initialized legacy session that a list changed.
// Changes in quick succession are coalesced per session (coalescer), so a
// client that does not read costs one goroutine per list, not one per
// change.
func (s *Server) changed(method string) {
	s.announce(context.Background(), Change{Method: method})
}

// listChanged tells this replica's sessions and listeners that a list
// changed.
func (s *Server) listChanged(method string) {
	s.notifyListeners(method, "")
	for _, ss := range s.Sessions() {
		if ss.initializedLegacy() {
			ss.notify.post(method, func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = ss.connection().Notify(ctx, method, &struct{}{})
			})
		}
	}
}

func (s *Server) supports(v string) bool { return slices.Contains(s.opts.Versions, v) }

func (s *Server) unsupported(requested string) *Error {
	return transport.NewError(CodeUnsupportedProtocolVersion, fmt.Sprintf("Unsupported protocol version %q", requested),
		UnsupportedVersionData{Supported: s.opts.Versions, Requested: requested})
}
