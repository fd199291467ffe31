package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// DefaultIdleTimeout is how long an ephemeral server stays up without
// calls.
const DefaultIdleTimeout = 5 * time.Minute

// ErrManagerClosed is returned by a Manager after Close.
var ErrManagerClosed = errors.New("client: manager closed")

// ManagerOptions configure a Manager. The zero value is ready to use.
type ManagerOptions struct {
	// Process is the template of every server's ProcessOptions. A server's
	// timeoutMs sets Process.Client.Timeout, and its autoRestart sets
	// Process.Restart (to the template's policy, or the default one).
	// Logger and StderrLogger log with the attribute mcpServer, the
	// server's name; the callbacks (OnStderr, OnExit, OnStateChange, and
	// Client's OnLog and the like) are shared as they are: to tell which
	// server called them, set them per server in Configure. The
	// backoff of Process.Restart (or of the default RestartPolicy: 200 ms
	// doubling to 30 s) also paces the starts of a server that fails to
	// start, whether or not it restarts on crashes (see StartError).
	Process ProcessOptions
	// Configure, if not nil, adjusts one server's options, made from
	// Process and the server's configuration, before the Manager uses
	// them: a host sets callbacks that know the server by name here
	// (OnStderr, OnExit, OnStateChange, Client.OnLog, ...), since a log
	// message's logger is whatever the server chose to write. opts.Client
	// is the server's own copy. It is called once per server, from
	// NewManager.
	Configure func(server string, opts *ProcessOptions)
	// ToolName makes the preferred aggregated name of a server's tool; nil
	// means server + "__" + tool. The preferred name is kept when it
	// matches ^[a-zA-Z0-9_-]+$, fits MaxToolNameLen and no other tool
	// wants it. Otherwise the characters outside that set become '_', the
	// name is cut to fit, and "_" plus 8 hex digits of SHA-256 of the
	// server's and the tool's names is appended: every aggregated name
	// passes the hosts' rules, routes to exactly one tool, and is the
	// same after a restart. Tools that want the same name are all renamed
	// so, whichever server answers first, and a tool listed under another
	// tool's renamed name is renamed itself. This is the naming of the
	// gateway facade too (docs/FACADE.md, "Names").
	ToolName func(server, tool string) string
	// MaxToolNameLen caps the length of aggregated names; zero means 64
	// (mcp.MaxPortableToolNameLen), the limit of Claude Desktop, OpenAI
	// and Codex, and values below 16 mean 16. Cursor limits a server's
	// name and its tool's name together to 60 characters: to offer the
	// list to Cursor as a server named S, set 60 - len(S).
	MaxToolNameLen int
	// IdleTimeout stops an ephemeral server after this long without calls;
	// zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxConcurrentStarts bounds how many servers start at once, from
	// launching the program until its handshake ends: the starts of Start,
	// of Server, Tools and CallTool (an ephemeral server waking, a server
	// started again after it failed), and the restarts of autoRestart
	// servers, all together. A start beyond it waits for a slot within its
	// context (Start's, Server's, ...), and its start-up timeout counts
	// from when it has one. Zero means two per CPU (GOMAXPROCS), at least
	// four; negative means no bound. Without one, a configuration of 300
	// npx servers started 300 node processes at once, and on a small
	// machine every one of them missed its start-up timeout.
	// Process.StartLimit, if set, replaces it: one bound shared with other
	// Managers, or with code that calls Launch (a gateway's upstreams).
	MaxConcurrentStarts int
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// StartError reports a managed server whose last start failed, or whose
// process ended for good less than the restart policy's StableAfter (a
// minute) after it started. The Manager does not try again before Next:
// such a server is retried with the backoff of its restart policy
// (ManagerOptions.Process.Restart, or the default RestartPolicy: 200 ms
// doubling up to 30 s), so that calls in the meantime fail at once
// instead of relaunching it (and waiting for it to fail) each time.
type StartError struct {
	// Attempts is how many starts in a row have failed.
	Attempts int
	// Next is when the next start may be tried.
	Next time.Time
	// Err is why the last start failed.
	Err error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("failed to start (attempt %d), next attempt at %s: %v",
		e.Attempts, e.Next.Format("15:04:05.000"), e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Manager runs the servers of an "mcpServers" configuration as one: it
// starts them concurrently, offers their tools as one list with names
// that cannot collide, routes each call to its server, reports each
// server's status, and stops them all on Close. It runs stdio servers
// only: a "url" entry fails with ErrRemoteServer (in Start, Tools and
// Status), and the others serve regardless.
type Manager struct {
	opts   ManagerOptions
	log    *slog.Logger
	ctx    context.Context // cancelled by Close: ends starts under way
	cancel context.CancelCauseFunc
	now    func() time.Time // the clock of the start backoff (tests set it)
	limit  *StartLimit      // MaxConcurrentStarts, or Process.StartLimit
	// idleStops counts the idle stops under way, which Close waits for:
	// they are Process.Closes it no longer sees (ms.proc is nil).
	idleStops sync.WaitGroup

	mu      sync.Mutex
	servers map[string]*managed
	names   []string         // sorted
	routes  map[string]route // aggregated tool name -> server tool
	listed  bool             // routes come from a Tools call
	closed  bool
}

type route struct{ server, tool string }

// managed is one configured server.
type managed struct {
	m    *Manager
	cfg  *ServerConfig
	opts ProcessOptions

	mu   sync.Mutex
	proc *Process
	run  *startRun // non-nil while a start is under way
	// sawAbandoned counts callers that found a start every caller had
	// given up on, and waited for it to end (for tests).
	sawAbandoned int
	lastErr      error       // why the last start failed
	pace         *StartPacer // failed starts in a row (a run that ended before StableAfter counts), and when the next may be
	// readyAt and failedAt are when the process last became ready and
	// when it failed for good, on the Manager's clock (watch).
	readyAt, failedAt time.Time
	tools             []*mcp.Tool // the last list seen (kept while an ephemeral server sleeps)
	inUse             int
	idle              *time.Timer
}

// NewManager returns a Manager for cfg; no server starts before Start or
// first use.
func NewManager(cfg *Config, opts *ManagerOptions) *Manager {
	m := &Manager{servers: map[string]*managed{}, routes: map[string]route{}, now: time.Now}
	m.ctx, m.cancel = context.WithCancelCause(context.Background())
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.IdleTimeout <= 0 {
		m.opts.IdleTimeout = DefaultIdleTimeout
	}
	m.limit = m.opts.Process.StartLimit
	if m.limit == nil {
		m.limit = NewStartLimit(m.opts.MaxConcurrentStarts)
	}
	m.log = m.opts.Logger
	if m.log == nil {
		m.log = slog.Default()
	}
	for name, sc := range cfg.Servers {
		ms := &managed{m: m, cfg: sc, opts: m.opts.Process}
		ms.opts.StartLimit = m.limit
		if sc.URL != "" {
			ms.lastErr = ErrRemoteServer // what Status says of it
		}
		ms.opts.Logger = m.log.With("mcpServer", name)
		if m.opts.Process.Logger != nil {
			ms.opts.Logger = m.opts.Process.Logger.With("mcpServer", name)
		}
		if l := m.opts.Process.StderrLogger; l != nil {
			// The command ("node", "python") does not tell two servers
			// apart; the name in the configuration does.
			ms.opts.StderrLogger = l.With("mcpServer", name)
		}
		if sc.Timeout > 0 {
			ms.opts.Client = sc.ClientOptions(ms.opts.Client)
		}
		if sc.AutoRestart && ms.opts.Restart == nil {
			ms.opts.Restart = &RestartPolicy{}
		}
		if !sc.AutoRestart {
			ms.opts.Restart = nil
		}
		if m.opts.Configure != nil {
			if ms.opts.Client != nil && ms.opts.Client == m.opts.Process.Client {
				c := *ms.opts.Client // the server's own, not the template's
				ms.opts.Client = &c
			}
			m.opts.Configure(name, &ms.opts)
		}
		ms.watch()
		ms.pace = NewStartPacer(ms.startPolicy())
		m.servers[name] = ms
		m.names = append(m.names, name)
	}
	slices.Sort(m.names)
	return m
}

// Start starts every enabled keep-alive server, concurrently (at most
// MaxConcurrentStarts at once, the others waiting their turn within ctx),
// and waits for them to be ready. Servers that fail to start are reported
// in the returned error (one joined error naming each) and by Status; the
// others serve regardless.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return ErrManagerClosed
	}
	var wg sync.WaitGroup
	errs := make([]error, len(m.names))
	for i, name := range m.names {
		ms := m.servers[name]
		if ms.cfg.Disabled || ms.cfg.Lifecycle == Ephemeral {
			continue
		}
		wg.Go(func() {
			if _, err := ms.process(ctx); err != nil {
				errs[i] = fmt.Errorf("%s: %w", name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Server returns the running Process of a server, starting it if it is
// ephemeral and asleep (or was never started, or stopped for good).
func (m *Manager) Server(ctx context.Context, name string) (*Process, error) {
	ms, err := m.lookup(name)
	if err != nil {
		return nil, err
	}
	return ms.process(ctx)
}

func (m *Manager) lookup(name string) (*managed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrManagerClosed
	}
	ms, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("client: no server %q in the configuration", name)
	}
	if ms.cfg.Disabled {
		return nil, fmt.Errorf("client: server %q is disabled", name)
	}
	return ms, nil
}

// watch records when the server's process becomes ready and when it
// fails for good, so that a run that ends soon after it began counts as
// a failed start (process).
func (ms *managed) watch() {
	user := ms.opts.OnStateChange
	ms.opts.OnStateChange = func(s State, err error) {
		if s == StateReady || s == StateFailed {
			now := ms.m.now()
			ms.mu.Lock()
			if s == StateReady {
				ms.readyAt = now
			} else {
				ms.failedAt = now
			}
			ms.mu.Unlock()
		}
		if user != nil {
			user(s, err)
		}
	}
}

// startPolicy is the backoff between failed starts: the server's restart
// policy, or the Manager's, or (nil) the default one.
func (ms *managed) startPolicy() *RestartPolicy {
	if ms.opts.Restart != nil {
		return ms.opts.Restart
	}
	return ms.m.opts.Process.Restart
}

// process returns the running process, starting it if needed; concurrent
// callers share one start. After a failed start it fails at once with a
// *StartError until the backoff has passed.
func (ms *managed) process(ctx context.Context) (*Process, error) {
	if ms.cfg.URL != "" {
		return nil, ErrRemoteServer
	}
	ms.mu.Lock()
	for ms.run != nil && ms.run.waiting == 0 {
		// Every caller gave up on the start under way, which is ending:
		// wait for it to end, then start afresh rather than share its
		// cancellation.
		done := ms.run.done
		ms.sawAbandoned++
		ms.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		ms.mu.Lock()
	}
	if p := ms.proc; p != nil {
		s := p.State()
		if s != StateStopped && s != StateFailed {
			ms.mu.Unlock()
			return p, nil
		}
		ms.proc = nil // failed for good: start afresh
		if s == StateFailed {
			ms.ended(p)
		}
	}
	if run := ms.run; run != nil {
		run.waiting++
		ms.mu.Unlock()
		return ms.await(ctx, run)
	}
	if ms.pace.Failures() > 0 && ms.m.now().Before(ms.pace.Next()) {
		err := ms.lastErr // the *StartError of the last attempt
		ms.mu.Unlock()
		return nil, err
	}
	// Checked under ms.mu, which Close takes after setting closed to find
	// the starts under way: a start either is seen and waited for by
	// Close, or sees closed and launches nothing.
	ms.m.mu.Lock()
	closed := ms.m.closed
	ms.m.mu.Unlock()
	if closed {
		ms.mu.Unlock()
		return nil, ErrManagerClosed
	}
	if ctx.Err() != nil {
		// A caller already gone starts nothing: its start would be
		// abandoned at once or, if it failed first, counted.
		ms.mu.Unlock()
		return nil, context.Cause(ctx)
	}
	// The start is every waiting caller's, not this one's: it keeps
	// ctx's values but not its end, and ends only once every caller has
	// given up (await), or with Close. Before, the first caller's
	// context ended it, and the callers that came after got that
	// caller's cancellation for an error.
	lctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	run := &startRun{done: make(chan struct{}), waiting: 1, cancel: cancel}
	ms.run = run
	ms.mu.Unlock()
	go ms.launch(lctx, run)
	return ms.await(ctx, run)
}

// launchEnded, if set by a test, runs as a start's Launch returns.
var launchEnded func()

// startRun is a start under way, shared by the callers of process that
// wait for it. Its fields are guarded by managed.mu.
type startRun struct {
	done    chan struct{} // closed once proc and err are set
	waiting int           // callers still waiting
	cancel  context.CancelCauseFunc
	proc    *Process
	err     error
}

// await waits for run within ctx. The last waiting caller to give up
// ends the start.
func (ms *managed) await(ctx context.Context, run *startRun) (*Process, error) {
	select {
	case <-run.done:
		ms.mu.Lock()
		defer ms.mu.Unlock()
		return run.proc, run.err
	case <-ctx.Done():
		ms.mu.Lock()
		run.waiting--
		if run.waiting == 0 {
			run.cancel(context.Cause(ctx))
		}
		ms.mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// launch starts the server for run, on a goroutine of its own, so that a
// caller that gives up returns at once, while the others wait on.
func (ms *managed) launch(ctx context.Context, run *startRun) {
	// A start under way, or waiting for its slot, ends with Close, and
	// says so.
	stop := context.AfterFunc(ms.m.ctx, func() { run.cancel(ErrManagerClosed) })
	p, err := Launch(ctx, ms.cfg.CommandSpec(), &ms.opts)
	stop()
	if launchEnded != nil {
		launchEnded()
	}
	// Abandoned (every caller gave up, or Close) if that is why it
	// failed: Launch's error then carries the cause. A start that failed
	// on its own and was given up on while it stopped the server (up to
	// StopGrace and KillGrace) says as much of the server as any.
	abandoned := err != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx))
	run.cancel(nil)
	ms.mu.Lock()
	ms.run = nil
	ms.lastErr = err
	if err != nil && !abandoned {
		// A start every caller gave up on says nothing of the server;
		// one that failed on its own is not tried again before the
		// backoff.
		next := ms.pace.Failed(ms.m.now())
		err = &StartError{Attempts: ms.pace.Failures(), Next: next, Err: err}
		ms.lastErr = err
	}
	if err == nil {
		ms.pace.Started()
		ms.m.mu.Lock()
		closed := ms.m.closed
		ms.m.mu.Unlock()
		if closed {
			ms.mu.Unlock()
			p.Close()
			ms.mu.Lock()
			p, err = nil, ErrManagerClosed
		} else {
			ms.proc = p
			if run.waiting == 0 && ms.inUse == 0 && ms.cfg.Lifecycle == Ephemeral {
				// Every caller gave up as it came up: none will
				// release it, and without the idle stop it would run
				// until the next call or Close.
				ms.idleLater()
			}
		}
	}
	run.proc, run.err = p, err
	ms.mu.Unlock()
	close(run.done)
}

// ended accounts for a process that failed for good. One that ran less
// than the policy's StableAfter (a minute) counts as a failed start, and
// the next start waits for the backoff: its start succeeded, but a server
// that exits right after its handshake would otherwise be launched again
// by every call, at once and without end. ms.mu is held.
func (ms *managed) ended(p *Process) {
	failedAt := ms.failedAt
	if failedAt.Before(ms.readyAt) {
		// The state changed, but watch has yet to hear of it.
		failedAt = ms.m.now()
	}
	next, short := ms.pace.Ended(ms.readyAt, failedAt)
	if !short {
		return
	}
	ran := failedAt.Sub(ms.readyAt)
	ms.lastErr = &StartError{Attempts: ms.pace.Failures(), Next: next,
		Err: fmt.Errorf("exited %v after it started: %w", ran.Round(time.Millisecond), p.Err())}
}

// acquire marks the server in use (holding off the idle stop) and returns
// its process; release must follow.
func (ms *managed) acquire(ctx context.Context) (*Process, error) {
	ms.mu.Lock()
	ms.inUse++
	if ms.idle != nil {
		ms.idle.Stop()
		ms.idle = nil
	}
	ms.mu.Unlock()
	p, err := ms.process(ctx)
	if err != nil {
		ms.release()
	}
	return p, err
}

func (ms *managed) release() {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.inUse--
	if ms.inUse > 0 || ms.cfg.Lifecycle != Ephemeral || ms.proc == nil {
		return
	}
	ms.idleLater()
}

// idleLater arms the idle stop of an ephemeral server. ms.mu is held.
func (ms *managed) idleLater() {
	if ms.idle != nil {
		ms.idle.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(ms.m.opts.IdleTimeout, func() {
		ms.mu.Lock()
		if ms.idle != t || ms.inUse > 0 {
			ms.mu.Unlock()
			return
		}
		p := ms.proc
		ms.proc, ms.idle = nil, nil
		if p != nil {
			// Under ms.mu: Close, which takes it after stopping the
			// timers, waits only for Adds made before.
			ms.m.idleStops.Add(1)
		}
		ms.mu.Unlock()
		if p != nil {
			defer ms.m.idleStops.Done()
			ms.opts.Logger.Info("mcp manager: stopping idle ephemeral server")
			p.Close()
		}
	})
	ms.idle = t
}

// toolName is the aggregated name of a server's tool, before collisions
// are resolved.
func (m *Manager) toolName(server, tool string) string {
	if m.opts.ToolName != nil {
		return m.opts.ToolName(server, tool)
	}
	return server + "__" + tool
}

// Tools returns the tools of every enabled server as one list, each
// renamed (see ManagerOptions.ToolName); CallTool takes these names. The
// servers are asked concurrently; ephemeral ones are started the first
// time and answered from their last list while asleep. Servers that fail
// are left out and named in the error, which comes with the tools of the
// others.
func (m *Manager) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrManagerClosed
	}
	m.mu.Unlock()
	lists := make([][]*mcp.Tool, len(m.names))
	errs := make([]error, len(m.names))
	var wg sync.WaitGroup
	for i, name := range m.names {
		ms := m.servers[name]
		if ms.cfg.Disabled {
			continue
		}
		wg.Go(func() {
			lists[i], errs[i] = ms.listTools(ctx)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", name, errs[i])
			}
		})
	}
	wg.Wait()

	var pairs []route
	var defs []*mcp.Tool
	for i, name := range m.names {
		seen := map[string]bool{}
		for _, t := range lists[i] {
			if seen[t.Name] {
				continue // a server that lists a tool twice: once is enough
			}
			seen[t.Name] = true
			pairs = append(pairs, route{name, t.Name})
			defs = append(defs, t)
		}
	}
	limit := m.opts.MaxToolNameLen
	if limit <= 0 {
		limit = mcp.MaxPortableToolNameLen
	}
	routes := make(map[string]route, len(pairs))
	all := make([]*mcp.Tool, len(pairs))
	for i, qn := range aggregateNames(pairs, m.toolName, limit) {
		routes[qn] = pairs[i]
		ct := *defs[i]
		ct.Name = qn
		all[i] = &ct
	}
	m.mu.Lock()
	m.routes, m.listed = routes, true
	m.mu.Unlock()
	return all, errors.Join(errs...)
}

func (ms *managed) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	ms.mu.Lock()
	asleep := ms.proc == nil && ms.run == nil && ms.tools != nil && ms.cfg.Lifecycle == Ephemeral
	cached := ms.tools
	ms.mu.Unlock()
	if asleep {
		return cached, nil
	}
	p, err := ms.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer ms.release()
	tools, err := p.Tools(ctx)
	if err != nil {
		return nil, err
	}
	ms.mu.Lock()
	ms.tools = tools
	ms.mu.Unlock()
	return tools, nil
}

// Route returns the server and the tool's own name for an aggregated tool
// name. Names from the last Tools are known; before any, default names
// (server__tool) are split at the longest matching server name, which is
// right only for names the Manager did not have to rename.
func (m *Manager) Route(name string) (server, tool string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.routes[name]; ok {
		return r.server, r.tool, nil
	}
	if m.opts.ToolName == nil {
		best := ""
		for _, s := range m.names {
			if strings.HasPrefix(name, s+"__") && len(s) > len(best) {
				best = s
			}
		}
		if best != "" {
			return best, strings.TrimPrefix(name, best+"__"), nil
		}
	}
	return "", "", fmt.Errorf("client: no tool %q among the managed servers", name)
}

// CallTool calls a tool by its aggregated name on the server that has it.
// A name the Manager has not listed yet (a host that kept the names of an
// earlier run) is looked up by listing the servers' tools once: renamed
// tools cannot be told from their names alone.
func (m *Manager) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	m.mu.Lock()
	r, known := m.routes[name]
	listed := m.listed
	m.mu.Unlock()
	if !known && !listed {
		m.Tools(ctx) // the servers that fail are named by the call below
	}
	server, tool := r.server, r.tool
	if !known {
		var err error
		if server, tool, err = m.Route(name); err != nil {
			return nil, err
		}
	}
	ms, err := m.lookup(server)
	if err != nil {
		return nil, err
	}
	p, err := ms.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	defer ms.release()
	return p.CallTool(ctx, tool, args, opts...)
}

// ServerStatus describes one managed server.
type ServerStatus struct {
	Name      string
	Disabled  bool
	Lifecycle Lifecycle
	// Running is true while a process exists (starting, ready or
	// restarting).
	Running bool
	// State is the process's state; an ephemeral server asleep, or one
	// not started yet, is StateStopped.
	State    State
	Pid      int
	Restarts int
	Tools    int   // tools in the last list seen
	Err      error // why it failed, or why its last start failed
	// NextAttempt is when a server whose last start failed may be started
	// again (zero if its last start did not fail); Err is a *StartError.
	NextAttempt time.Time
}

// Status returns the status of every configured server, by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.names))
	for _, name := range m.names {
		ms := m.servers[name]
		ms.mu.Lock()
		st := ServerStatus{Name: name, Disabled: ms.cfg.Disabled, Lifecycle: ms.cfg.Lifecycle, State: StateStopped,
			Tools: len(ms.tools), Err: ms.lastErr}
		if ms.pace.Failures() > 0 {
			st.NextAttempt = ms.pace.Next()
		}
		if ms.run != nil {
			st.Running, st.State = true, StateStarting
		}
		p := ms.proc
		ms.mu.Unlock()
		if p != nil {
			st.State, st.Pid, st.Restarts = p.State(), p.Pid(), p.Restarts()
			st.Running = st.State != StateStopped && st.State != StateFailed
			if err := p.Err(); err != nil {
				st.Err = err
			}
		}
		out = append(out, st)
	}
	return out
}

// Close stops every server, concurrently, and waits for them (each within
// its Process.Close bound). Later calls fail with ErrManagerClosed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.cancel(ErrManagerClosed)
	var wg sync.WaitGroup
	for _, ms := range m.servers {
		ms.mu.Lock()
		p, run := ms.proc, ms.run
		ms.proc = nil
		if ms.idle != nil {
			ms.idle.Stop()
			ms.idle = nil
		}
		ms.mu.Unlock()
		if p != nil {
			wg.Go(func() { p.Close() })
		}
		if run != nil {
			// The start sees m.closed when it ends and closes what it
			// started.
			wg.Go(func() { <-run.done })
		}
	}
	wg.Wait()
	m.idleStops.Wait()
	return nil
}
