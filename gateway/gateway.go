package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/winexec"
)

// Options configure a Gateway.
type Options struct {
	// Config holds the upstream servers run as child processes (the
	// "mcpServers" format).
	Config *client.Config
	// HTTP holds the upstream servers reached over Streamable HTTP
	// (ParseConfig's "url" entries).
	HTTP map[string]*HTTPServer
	// Servers are upstream servers in this process, by name; they need no
	// child process. A name must be in only one of Config, HTTP and
	// Servers.
	Servers map[string]*mcp.Server
	// Policy; nil means the zero Policy (every tool, the defaults).
	Policy *Policy
	// Profile names the policy profile; empty means Policy.Profile.
	Profile string
	// Info is how the facade introduces itself downstream; nil means
	// "winbridge-gateway".
	Info *mcp.Implementation
	// Process is the template of every child's ProcessOptions. The
	// facade always restarts a crashed child (Process.Restart, or the
	// default policy) and sets its own client handlers.
	Process client.ProcessOptions
	// Audit receives one record per tools/call (slog.NewJSONHandler over
	// an OpenRotatingFile, say); nil means no audit.
	Audit slog.Handler
	// PathMapper maps Windows paths for scope binding; nil means
	// winexec's default mapping.
	PathMapper *winexec.PathMapper
	// IdleTimeout stops an ephemeral server ("lifecycle": "ephemeral")
	// after this long without calls; zero means client.DefaultIdleTimeout
	// (5 minutes). Its lists are kept; the next call starts it again.
	IdleTimeout time.Duration
	// MaxConcurrentStarts bounds how many upstream child processes start
	// at once, from launching the program until its handshake ends: first
	// starts, restarts, ephemeral servers waking and the servers a Reload
	// adds, all together (HTTP and in-process upstreams start no process
	// and are not counted). A start beyond it waits for a slot, shown as
	// "starting", and its start-up timeout counts from when it has one.
	// Zero means two per CPU (GOMAXPROCS), at least four; negative means
	// no bound. Without one, a configuration of 200 npx servers started
	// 200 node processes at once, and on a small machine every one of
	// them missed its start-up timeout. Process.StartLimit, if set,
	// replaces it: one bound shared with a client.Manager or another
	// Gateway.
	MaxConcurrentStarts int
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Gateway is the facade: it serves, through one mcp.Server, the tools,
// resources, resource templates and prompts of many upstream servers,
// under names and schemas every host accepts, and runs every tools/call
// through the pipeline of docs/FACADE.md.
type Gateway struct {
	opts   Options
	audit  *auditor
	log    *slog.Logger
	info   *mcp.Implementation
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	starts *client.StartLimit // every child's start holds one of its slots

	upsMu sync.RWMutex
	ups   map[string]*upstream // Reload changes the set

	main    *view // Options.Profile's
	viewsMu sync.Mutex
	views   []*view // main first; ServerFor adds

	concMu sync.Mutex
	conc   map[string]*atomic.Int32 // running calls per "server/tool"

	settleMu sync.Mutex
	settle   chan struct{} // closed and replaced at each change of an upstream

	sessMu   sync.Mutex
	sessions map[*mcp.ServerSession]*sessionState
	nextSess atomic.Uint64

	schemas *schemaCache // compiled schemas, shared by rebuilds and profiles

	identMu    sync.Mutex
	identities map[string]*identity // stateless callers (budget.go)
	now        func() time.Time     // the windows' clock; tests move it
}

// sessionState counts the calls of one session, or of one stateless
// caller (budget.go).
type sessionState struct {
	id    string
	who   string // names a stateless caller in a refusal
	calls atomic.Int64
	limit int // when not 0, replaces the tools' callsPerSession

	approvals approvalState // the approval questions of this caller (budget.go)
}

// New checks the configuration and policy and returns a Gateway; nothing
// starts before Start.
func New(opts *Options) (*Gateway, error) {
	g := &Gateway{conc: map[string]*atomic.Int32{}, sessions: map[*mcp.ServerSession]*sessionState{}, identities: map[string]*identity{}, ups: map[string]*upstream{}, now: time.Now,
		schemas: newSchemaCache(maxCachedSchemas, maxCachedSchemaBytes)}
	if opts != nil {
		g.opts = *opts
	}
	g.log = g.opts.Logger
	if g.log == nil {
		g.log = slog.Default()
	}
	st, err := newSettings(g.opts.Policy, g.opts.Profile, g.opts.PathMapper)
	if err != nil {
		return nil, err
	}
	if g.opts.Audit != nil {
		g.audit = &auditor{h: g.opts.Audit}
	}
	g.starts = g.opts.Process.StartLimit
	if g.starts == nil {
		g.starts = client.NewStartLimit(g.opts.MaxConcurrentStarts)
	}
	g.info = g.opts.Info
	if g.info == nil {
		g.info = &mcp.Implementation{Name: "winbridge-gateway", Version: "0.1.0"}
	}
	g.main = g.newView(g.opts.Profile, st)
	g.views = []*view{g.main}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	ups, err := g.newUpstreams(&g.opts)
	if err != nil {
		return nil, err
	}
	g.ups = ups
	return g, nil
}

// Server is the downstream server of Options.Profile: serve it on stdio
// (Run), HTTP (mcphttp) or any transport.
func (g *Gateway) Server() *mcp.Server { return g.main.srv }

// ErrClosed is returned by Start when the Gateway is closed before its
// upstreams have settled.
var ErrClosed = errors.New("gateway: closed")

// Start starts every upstream and waits until each is ready or has failed
// once (ctx bounds the wait, and Close ends it with ErrClosed); failed
// ones keep being retried with backoff while the others serve. The error
// names the servers that failed.
func (g *Gateway) Start(ctx context.Context) error {
	for _, u := range g.upstreams() {
		g.launch(u)
	}
	return g.waitSettled(ctx)
}

// waitSettled waits until no upstream is starting.
func (g *Gateway) waitSettled(ctx context.Context) error {
	for {
		ch := g.settledCh()
		var errs []error
		starting := false
		for _, u := range g.upstreams() {
			name := u.name
			u.mu.Lock()
			st, err := u.state, u.err
			listed := u.listed
			u.mu.Unlock()
			switch {
			case st == StateStarting || (st == StateReady && !listed):
				starting = true
			case st == StateFailed:
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
		if !starting {
			return errors.Join(errs...)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-g.ctx.Done():
			// The run loops end without a last state: upstreams still
			// starting (waiting for a start slot, say) would never settle.
			return ErrClosed
		}
	}
}

// Close stops every upstream and ends the downstream sessions.
func (g *Gateway) Close() error {
	g.cancel()
	closeAll(g.upstreams())
	g.wg.Wait()
	for _, v := range g.allViews() {
		for _, ss := range v.srv.Sessions() {
			ss.Close()
		}
	}
	return nil
}

// SetServerEnabled is the kill switch: a disabled server is stopped, its
// tools leave the surface (sessions get list_changed) and calls to them
// are refused with server_disabled; enabling starts it again.
func (g *Gateway) SetServerEnabled(name string, enabled bool) error {
	u := g.upstream(name)
	if u == nil {
		return fmt.Errorf("gateway: no server %q", name)
	}
	u.mu.Lock()
	was := u.killed
	u.killed = !enabled
	u.mu.Unlock()
	switch {
	case !enabled && !was:
		u.close()
		u.setState(StateDisabled, nil)
		g.rebuild()
	case enabled && was:
		u.setState(StateStarting, nil)
		g.launch(u)
	}
	return nil
}

// ServerStatus describes one upstream.
type ServerStatus struct {
	Name  string
	State ServerState
	Err   error
	Tools int
}

// Status reports every upstream, by name.
func (g *Gateway) Status() []ServerStatus {
	ups := g.upstreams()
	out := make([]ServerStatus, 0, len(ups))
	for _, u := range ups {
		u.mu.Lock()
		out = append(out, ServerStatus{Name: u.name, State: u.state, Err: u.err, Tools: len(u.tools)})
		u.mu.Unlock()
	}
	return out
}

// session returns the state of a downstream session, creating it on first
// sight; it is dropped when the session ends.
func (g *Gateway) session(ss *mcp.ServerSession) *sessionState {
	g.sessMu.Lock()
	defer g.sessMu.Unlock()
	st, ok := g.sessions[ss]
	if !ok {
		st = &sessionState{id: fmt.Sprintf("s%d", g.nextSess.Add(1))}
		g.sessions[ss] = st
		if ss != nil {
			go func() {
				select {
				case <-ss.Done():
				case <-g.ctx.Done():
				}
				g.sessMu.Lock()
				delete(g.sessions, ss)
				g.sessMu.Unlock()
			}()
		}
	}
	return st
}

func (g *Gateway) concurrency(key string) *atomic.Int32 {
	g.concMu.Lock()
	defer g.concMu.Unlock()
	c, ok := g.conc[key]
	if !ok {
		c = &atomic.Int32{}
		g.conc[key] = c
	}
	return c
}

func (g *Gateway) settledCh() <-chan struct{} {
	g.settleMu.Lock()
	defer g.settleMu.Unlock()
	if g.settle == nil {
		g.settle = make(chan struct{})
	}
	return g.settle
}

// changed wakes those waiting in waitSettled.
func (g *Gateway) changed() {
	g.settleMu.Lock()
	defer g.settleMu.Unlock()
	if g.settle != nil {
		close(g.settle)
		g.settle = nil
	}
}

// upstreams returns the upstreams in name order.
func (g *Gateway) upstreams() []*upstream {
	g.upsMu.RLock()
	defer g.upsMu.RUnlock()
	out := make([]*upstream, 0, len(g.ups))
	for _, u := range g.ups {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b *upstream) int { return strings.Compare(a.name, b.name) })
	return out
}

func (g *Gateway) upstream(name string) *upstream {
	g.upsMu.RLock()
	defer g.upsMu.RUnlock()
	return g.ups[name]
}

// launch runs u's start loop until u is closed or the Gateway is.
func (g *Gateway) launch(u *upstream) {
	uctx, stop := context.WithCancel(g.ctx)
	u.mu.Lock()
	u.stop = stop
	u.mu.Unlock()
	g.wg.Go(func() { u.run(uctx) })
	g.wg.Go(func() { u.subscriber(uctx) })
}

// newUpstreams makes the upstreams opts configures (none started).
func (g *Gateway) newUpstreams(opts *Options) (map[string]*upstream, error) {
	ups := map[string]*upstream{}
	var names []string
	if opts.Config != nil {
		names = slices.AppendSeq(names, maps.Keys(opts.Config.Servers))
	}
	names = slices.AppendSeq(names, maps.Keys(opts.HTTP))
	names = slices.AppendSeq(names, maps.Keys(opts.Servers))
	slices.Sort(names)
	for _, n := range names {
		if err := checkServerName(n); err != nil {
			return nil, err
		}
	}
	if opts.Config != nil {
		for name, sc := range opts.Config.Servers {
			if sc.Disabled {
				continue
			}
			ups[name] = &upstream{g: g, name: name, cfg: sc, state: StateStarting, wake: make(chan struct{}, 1), subWake: make(chan struct{}, 1)}
		}
	}
	for name, h := range opts.HTTP {
		if _, dup := ups[name]; dup || (opts.Config != nil && opts.Config.Servers[name] != nil) {
			return nil, fmt.Errorf("gateway: server %q is configured twice", name)
		}
		if h == nil || h.Disabled {
			continue
		}
		ups[name] = &upstream{g: g, name: name, http: h, secrets: h.secrets(), state: StateStarting, subWake: make(chan struct{}, 1)}
	}
	for name, s := range opts.Servers {
		if _, dup := ups[name]; dup || (opts.Config != nil && opts.Config.Servers[name] != nil) || opts.HTTP[name] != nil {
			return nil, fmt.Errorf("gateway: server %q is both configured and in process", name)
		}
		if s == nil {
			return nil, fmt.Errorf("gateway: in-process server %q is nil", name)
		}
		ups[name] = &upstream{g: g, name: name, inproc: s, state: StateStarting, subWake: make(chan struct{}, 1)}
	}
	return ups, nil
}

func (g *Gateway) idleTimeout() time.Duration {
	if g.opts.IdleTimeout > 0 {
		return g.opts.IdleTimeout
	}
	return client.DefaultIdleTimeout
}
