package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// ServerState is what the facade knows of an upstream server.
type ServerState string

// The states of an upstream.
const (
	StateStarting ServerState = "starting"
	StateReady    ServerState = "ready"
	StateFailed   ServerState = "failed" // will be retried after a backoff
	StateDisabled ServerState = "disabled"
	// StateAsleep: an ephemeral server stopped after IdleTimeout without
	// calls; its last lists are served and a call starts it again.
	StateAsleep ServerState = "asleep"
)

// Backoff of an upstream that cannot start, or that stops soon after it
// started: it doubles from the first to the last.
const (
	startBackoffMin = 500 * time.Millisecond
	startBackoffMax = time.Minute
)

// upstream is one server behind the facade: a child process (stdio) or an
// in-process *mcp.Server reached through an in-memory pipe.
type upstream struct {
	g      *Gateway
	name   string
	cfg    *client.ServerConfig // a child process, or
	http   *HTTPServer          // a Streamable HTTP server, or
	inproc *mcp.Server          // a server in this process

	secrets []string // removed from its errors (redact.go)

	mu        sync.Mutex
	state     ServerState
	err       error
	proc      *client.Process
	c         *client.Client // the in-process server's client
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	killed    bool               // the kill switch
	stop      context.CancelFunc // ends the run loop
	relisting bool
	again     bool
	listed    bool                      // listed at least once since the last start
	unlisted  uint64                    // counts the resets of listed (a new start, a failure)
	pending   map[*pending]struct{}     // tools/calls in progress (forward.go)
	subs      map[string]*client.Client // subscribed URIs, and on which connection (subscribe.go)
	subWake   chan struct{}

	// Ephemeral servers (lifecycle "ephemeral") sleep when idle.
	inUse   int
	idle    *time.Timer
	idleGen uint64        // which idle clock is current
	wake    chan struct{} // a call asks the run loop to start a sleeping server

	// wait is how the run loop waits out its backoff; nil is a timer.
	// Tests set it before Start, to see the delays without taking them.
	wait func(ctx context.Context, d time.Duration) bool
}

func (u *upstream) ephemeral() bool {
	return u.cfg != nil && u.cfg.Lifecycle == client.Ephemeral
}

func (u *upstream) clientOptions() *client.Options {
	relist := func() { go u.relist() }
	o := &client.Options{
		ClientInfo:         &mcp.Implementation{Name: "winbridge-gateway", Version: "0.1.0"},
		ProtocolVersion:    mcp.LatestLegacyVersion, // results are read raw; no multi round-trip input upstream
		OnToolsChanged:     relist,
		OnResourcesChanged: relist,
		OnPromptsChanged:   relist,
		OnResourceUpdated: func(uri string) {
			if !u.subscribed(uri) {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for _, v := range u.g.allViews() {
				if v.reads.Load().disputed(uri, u) {
					// Subscribed before the dispute: u no longer answers
					// for uri, and its subscriber is ending the
					// subscription (subscribe.go).
					continue
				}
				v.srv.ResourceUpdated(ctx, uri)
			}
		},
		Logger: u.g.log.With("upstream", u.name),
	}
	u.forwarders(o)
	return o
}

// run keeps the upstream up until ctx ends: start, list, wait for the end
// of the run, retry with backoff.
//
// The backoff is the client Manager's (client.StartPacer): a start that
// fails counts, and so does one whose server then stops for good sooner
// than StableAfter (a minute) after it started. Before, a successful start
// reset the backoff, so a server that exited right after its handshake
// was launched again as soon as its process gave up, about once a second
// forever (for an npx server, an npm and a node start each time).
func (u *upstream) run(ctx context.Context) {
	pace := client.NewStartPacer(&client.RestartPolicy{InitialDelay: startBackoffMin, MaxDelay: startBackoffMax, Jitter: -1})
	for ctx.Err() == nil {
		done, err := u.start(ctx)
		if err == nil {
			pace.Started()
			began := time.Now()
			u.relist()
			u.release(false) // an ephemeral server starts its idle clock
			select {
			case <-done:
				if u.State() == StateAsleep {
					select { // until a call wakes it
					case <-u.wake:
						continue
					case <-ctx.Done():
						return
					}
				}
				if !u.setRunState(ctx, StateFailed, errors.New("the server stopped")) {
					return // closed: the state is no longer this loop's
				}
				u.g.rebuild()
				now := time.Now()
				next, short := pace.Ended(began, now)
				if !short {
					continue // it ran long enough: start it again at once
				}
				ran := now.Sub(began).Round(time.Millisecond)
				u.g.log.Warn("gateway: upstream stopped soon after it started", "upstream", u.name, "ran", ran,
					"failures", pace.Failures(), "retryIn", next.Sub(now))
				if !u.waitFor(ctx, next.Sub(now)) {
					return
				}
			case <-ctx.Done():
				return
			}
			continue
		}
		if !u.setRunState(ctx, StateFailed, err) {
			return
		}
		now := time.Now()
		retry := pace.Failed(now).Sub(now)
		u.g.log.Warn("gateway: upstream failed to start", "upstream", u.name, "err", u.redact(err), "retryIn", retry)
		u.g.rebuild()
		if !u.waitFor(ctx, retry) {
			return
		}
	}
}

// waitFor waits d, or until ctx ends (false).
func (u *upstream) waitFor(ctx context.Context, d time.Duration) bool {
	if u.wait != nil {
		return u.wait(ctx, d)
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

// start brings the server up; done is closed when it is gone for good.
func (u *upstream) start(ctx context.Context) (<-chan struct{}, error) {
	if !u.setRunState(ctx, StateStarting, nil) {
		return nil, errors.New("disabled") // closed: the state is the next loop's
	}
	opts := u.clientOptions()
	if u.inproc != nil {
		a, b := transport.Pipe(nil)
		ss := u.inproc.Connect(a)
		c, err := client.Connect(ctx, b, opts)
		if err != nil {
			ss.Close()
			return nil, err
		}
		if err := u.keep(ctx, c, nil); err != nil {
			return nil, err
		}
		return c.Done(), nil
	}
	if u.http != nil {
		// ctx is the upstream's life: it bounds the HTTP framer (and its
		// GET stream of notifications) too.
		stream, err := mcphttp.NewStream(ctx, u.http.URL, &mcphttp.ClientOptions{Header: u.http.Header,
			MaxMessageSize: u.g.main.set.Load().limits.MaxUpstreamMessageBytes, Logger: opts.Logger})
		if err != nil {
			return nil, err
		}
		if u.http.Timeout > 0 {
			opts.Timeout = u.http.Timeout
		}
		hctx, cancel := context.WithTimeout(ctx, client.DefaultHandshakeTimeout)
		c, err := client.Connect(hctx, stream, opts)
		cancel()
		if err != nil {
			return nil, err
		}
		if err := u.keep(ctx, c, nil); err != nil {
			return nil, err
		}
		return c.Done(), nil
	}
	po := u.g.opts.Process
	if po.Client != nil {
		co := *po.Client
		co.ClientInfo, co.ProtocolVersion = opts.ClientInfo, opts.ProtocolVersion
		co.OnToolsChanged, co.OnResourcesChanged, co.OnPromptsChanged, co.OnResourceUpdated = opts.OnToolsChanged, opts.OnResourcesChanged, opts.OnPromptsChanged, opts.OnResourceUpdated
		co.OnSampling, co.OnElicitation, co.OnRoots = nil, nil, opts.OnRoots
		co.OnSamplingRaw, co.OnElicitationRaw = opts.OnSamplingRaw, opts.OnElicitationRaw
		co.MaxServerRequests, co.MaxQueuedServerRequests = opts.MaxServerRequests, opts.MaxQueuedServerRequests
		opts = &co
	}
	if u.cfg.Timeout > 0 {
		opts.Timeout = u.cfg.Timeout
	}
	po.Client = opts
	po.MaxMessageSize = u.g.main.set.Load().limits.MaxUpstreamMessageBytes
	if po.Restart == nil {
		po.Restart = &client.RestartPolicy{}
	}
	po.Logger = u.g.log.With("upstream", u.name)
	// ctx (the loop's, ended by close and Close) bounds the wait for a
	// slot; the process's restarts wait within its own life.
	po.StartLimit = u.g.starts
	prev := po.OnStateChange
	po.OnStateChange = func(s client.State, err error) {
		if prev != nil {
			prev(s, err)
		}
		// A process of a closed loop (being closed with it) sets no
		// state: the state is the next loop's.
		switch s {
		case client.StateReady:
			if u.setRunState(ctx, StateReady, nil) {
				go u.relist() // a restarted server may offer other tools
			}
		case client.StateRestarting:
			u.setRunState(ctx, StateStarting, err)
		}
	}
	p, err := client.Launch(ctx, u.cfg.CommandSpec(), &po)
	if err != nil {
		return nil, err
	}
	if err := u.keep(ctx, nil, p); err != nil {
		return nil, err
	}
	return p.Done(), nil
}

// keep makes c, or the process p, the connection of the run loop of ctx,
// and the upstream ready, unless the loop was closed (close cancels ctx
// under u.mu, before it takes the connection to close it) or the kill
// switch thrown while it started: then it closes what start made, which
// nobody else would.
func (u *upstream) keep(ctx context.Context, c *client.Client, p *client.Process) error {
	u.mu.Lock()
	if ctx.Err() != nil || u.killed {
		u.mu.Unlock()
		if c != nil {
			c.Close()
		}
		if p != nil {
			p.Close()
		}
		return errors.New("disabled")
	}
	if c != nil {
		u.c = c
	}
	if p != nil {
		u.proc = p
	}
	u.setStateLocked(StateReady, nil)
	u.mu.Unlock()
	u.g.changed()
	return nil
}

func (u *upstream) setState(s ServerState, err error) {
	u.mu.Lock()
	u.setStateLocked(s, err)
	u.mu.Unlock()
	u.g.changed()
}

// setRunState is setState for the run loop of ctx; it sets nothing, and
// reports false, once ctx has ended. close cancels ctx before anyone can
// launch the upstream again, so a loop that wakes late (its connection
// closed by the kill switch, say) cannot overwrite the state of the next.
func (u *upstream) setRunState(ctx context.Context, s ServerState, err error) bool {
	u.mu.Lock()
	if ctx.Err() != nil {
		u.mu.Unlock()
		return false
	}
	u.setStateLocked(s, err)
	u.mu.Unlock()
	u.g.changed()
	return true
}

func (u *upstream) setStateLocked(s ServerState, err error) {
	if u.killed {
		s = StateDisabled
	}
	if s != StateReady && !(u.ephemeral() && (s == StateAsleep || s == StateStarting)) {
		u.listed = false
		u.unlisted++
	}
	u.state, u.err = s, u.redact(err)
}

// client returns the connection to the server, or why there is none.
func (u *upstream) client(ctx context.Context) (*client.Client, error) {
	u.mu.Lock()
	state, err, p, c, listed := u.state, u.err, u.proc, u.c, u.listed
	u.mu.Unlock()
	if state == StateAsleep || (state == StateStarting && u.ephemeral() && listed && p == nil) {
		return u.awaken(ctx) // asleep, or being woken by another call
	}
	switch {
	case state == StateDisabled:
		return nil, fmt.Errorf("server %q is disabled", u.name)
	case state == StateFailed:
		return nil, fmt.Errorf("server %q is not running: %v", u.name, err)
	case c != nil && state == StateReady:
		// Only once ready: while a new start is under way, c is the
		// previous run's connection.
		return c, nil
	case p != nil:
		return p.Client(ctx)
	}
	return nil, fmt.Errorf("server %q is starting", u.name)
}

// relistInterval paces the relists of one upstream: a server that floods
// list_changed would otherwise have the facade relist it back to back,
// each round a rebuild of every surface over every upstream. A change is
// still seen within one interval; the first relist after a quiet one is
// at once.
const relistInterval = 250 * time.Millisecond

// relist asks the server for everything it offers and rebuilds the
// surface. Concurrent asks fold into one more round, made no sooner than
// relistInterval after the last began.
func (u *upstream) relist() {
	u.mu.Lock()
	if u.relisting {
		u.again = true
		u.mu.Unlock()
		return
	}
	u.relisting = true
	// A round that began before the upstream was started again listed
	// the previous run, if anything: it does not mark this one listed.
	// The new run asks for a round of its own (again).
	gen := u.unlisted
	u.mu.Unlock()
	for {
		began := time.Now()
		reached := u.list()
		u.g.rebuild()
		u.wakeSubscriber() // a new connection is subscribed again
		u.mu.Lock()
		if reached && u.unlisted == gen {
			u.listed = true // after the rebuild: waitSettled sees the tools served
		}
		if !u.again {
			u.relisting = false
			u.mu.Unlock()
			u.g.changed()
			return
		}
		u.mu.Unlock()
		if !u.pace(began) {
			u.mu.Lock()
			u.relisting, u.again = false, false
			u.mu.Unlock()
			u.g.changed()
			return
		}
		u.mu.Lock()
		u.again = false
		gen = u.unlisted
		u.mu.Unlock()
	}
}

// pace waits until relistInterval has passed since began; false if the
// gateway closed meanwhile.
func (u *upstream) pace(began time.Time) bool {
	wait := relistInterval - time.Since(began)
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-u.g.ctx.Done():
		return false
	}
}

// list reads the server's lists; it reports false, and changes nothing,
// when there is no connection to ask (a child's ready hook asks for a
// relist before Launch has returned the process).
func (u *upstream) list() bool {
	ctx, cancel := context.WithTimeout(u.g.ctx, 30*time.Second)
	defer cancel()
	c, err := u.client(ctx)
	if err != nil {
		return false
	}
	caps := c.Capabilities()
	var tools []*mcp.Tool
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	var prompts []*mcp.Prompt
	if caps.Tools != nil {
		if tools, err = c.ListTools(ctx); err != nil {
			u.g.log.Warn("gateway: listing tools", "upstream", u.name, "err", u.redact(err))
		}
	}
	if caps.Resources != nil {
		if resources, err = c.ListResources(ctx); err != nil {
			u.g.log.Warn("gateway: listing resources", "upstream", u.name, "err", u.redact(err))
		}
		if templates, err = c.ListResourceTemplates(ctx); err != nil {
			u.g.log.Warn("gateway: listing resource templates", "upstream", u.name, "err", u.redact(err))
		}
	}
	if caps.Prompts != nil {
		if prompts, err = c.ListPrompts(ctx); err != nil {
			u.g.log.Warn("gateway: listing prompts", "upstream", u.name, "err", u.redact(err))
		}
	}
	tools = capList(u, "tools", tools)
	resources = capList(u, "resources", resources)
	templates = capList(u, "resource templates", templates)
	prompts = capList(u, "prompts", prompts)
	u.mu.Lock()
	u.tools, u.resources, u.templates, u.prompts = tools, resources, templates, prompts
	u.mu.Unlock()
	return true
}

// snapshot returns what the server offers now; nothing unless it is ready.
func (u *upstream) snapshot() (ServerState, []*mcp.Tool, []*mcp.Resource, []*mcp.ResourceTemplate, []*mcp.Prompt) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case u.state == StateReady:
	case u.ephemeral() && u.listed && (u.state == StateAsleep || u.state == StateStarting):
		// Asleep, or being woken: the last lists stand.
	default:
		return u.state, nil, nil, nil, nil
	}
	return u.state, u.tools, u.resources, u.templates, u.prompts
}

// close stops the server.
func (u *upstream) close() {
	u.mu.Lock()
	if u.stop != nil {
		// Under u.mu, before the connection is taken: a start that
		// connects meanwhile either has kept its connection, taken here,
		// or finds its loop ended and closes it itself (keep).
		u.stop()
	}
	p, c := u.proc, u.c
	u.proc, u.c = nil, nil
	u.mu.Unlock()
	if p != nil {
		p.Close()
	}
	if c != nil {
		c.Close()
	}
}

// State returns the upstream's state.
func (u *upstream) State() ServerState {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.state
}

// acquire marks a call in progress: an ephemeral server does not sleep
// under it. release must follow.
func (u *upstream) acquire() {
	if !u.ephemeral() {
		return
	}
	u.mu.Lock()
	u.inUse++
	if u.idle != nil {
		u.idle.Stop()
		u.idle = nil
	}
	u.idleGen++
	u.mu.Unlock()
}

// release ends a call (done) or, after a start, just arms the idle clock.
func (u *upstream) release(done bool) {
	if !u.ephemeral() {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if done {
		u.inUse--
	}
	if u.inUse > 0 || u.proc == nil {
		return
	}
	if u.idle != nil {
		u.idle.Stop()
	}
	u.idleGen++
	gen := u.idleGen
	u.idle = time.AfterFunc(u.g.idleTimeout(), func() { u.sleep(gen) })
}

// sleep stops an idle ephemeral server, keeping its lists; gen is the
// idle clock that fired (a later one supersedes it).
func (u *upstream) sleep(gen uint64) {
	u.mu.Lock()
	if u.idleGen != gen || u.inUse > 0 || u.proc == nil || u.killed {
		u.mu.Unlock()
		return
	}
	p := u.proc
	u.proc, u.idle = nil, nil
	u.state, u.err = StateAsleep, nil
	u.mu.Unlock()
	u.g.log.Info("gateway: ephemeral server idle; stopping it", "upstream", u.name)
	u.g.changed()
	p.Close()
}

// awaken starts a sleeping ephemeral server and waits until it is ready
// (or failed, or ctx ends).
func (u *upstream) awaken(ctx context.Context) (*client.Client, error) {
	select {
	case u.wake <- struct{}{}:
	default: // a wake is already pending
	}
	for {
		ch := u.g.settledCh()
		u.mu.Lock()
		state, err, p := u.state, u.err, u.proc
		u.mu.Unlock()
		switch {
		case state == StateReady && p != nil:
			return p.Client(ctx)
		case state == StateFailed || state == StateDisabled:
			return nil, fmt.Errorf("server %q is not running: %v", u.name, err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("server %q: waiting for it to start: %w", u.name, context.Cause(ctx))
		}
	}
}

// MaxListItems bounds what the facade takes of each list of one upstream
// (tools, resources, templates, prompts): a hostile server could list
// millions, each rebuilt into every surface. The rest is dropped with a
// warning.
const MaxListItems = 1000

func capList[T any](u *upstream, what string, items []T) []T {
	if len(items) <= MaxListItems {
		return items
	}
	u.g.log.Warn("gateway: an upstream lists too much; the rest is left out", "upstream", u.name, "what", what, "listed", len(items), "kept", MaxListItems)
	return items[:MaxListItems]
}
