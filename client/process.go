package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// Defaults of ProcessOptions.
const (
	DefaultStartTimeout     = 30 * time.Second
	DefaultNpxStartTimeout  = 5 * time.Minute
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultStopGrace        = 2 * time.Second
	DefaultKillGrace        = 2 * time.Second
	DefaultStderrTail       = 64 << 10
)

// Errors of a Process, besides *ExitError.
var (
	// ErrStartTimeout: the server did not answer its first request within
	// the start-up timeout.
	ErrStartTimeout = errors.New("server start-up timed out")
	// ErrHandshakeTimeout: the server answered, but did not finish the
	// handshake within the handshake timeout.
	ErrHandshakeTimeout = errors.New("server handshake timed out")
	// ErrRestarting: the server is restarting and RestartPolicy.FailFast is
	// set.
	ErrRestarting = errors.New("server is restarting")
	// ErrStopped: the Process was closed.
	ErrStopped = errors.New("server stopped")
	// ErrUnresponsive: the health check found the server not answering; it
	// was killed.
	ErrUnresponsive = errors.New("server stopped answering")
)

// State is where a Process is in its life.
type State int32

// The states of a Process. Stopped and Failed are final.
const (
	StateStarting   State = iota // launching and handshaking
	StateReady                   // answering calls
	StateRestarting              // crashed; a restart is pending or under way
	StateStopped                 // closed
	StateFailed                  // crashed for good (no restart policy, or it gave up)
)

func (s State) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateRestarting:
		return "restarting"
	case StateStopped:
		return "stopped"
	case StateFailed:
		return "failed"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// RestartPolicy restarts a crashed server with exponential backoff. Each
// restart redoes the handshake and refreshes the cached tool list. The zero
// value is a sensible policy.
type RestartPolicy struct {
	// MaxRestarts is how many restarts in a row may fail (the server
	// crashing again before StableAfter, or not starting) before the
	// Process is marked failed; zero means 5, negative means no limit.
	MaxRestarts int
	// InitialDelay is the wait before the first restart (zero: 200 ms),
	// multiplied by Multiplier (zero: 2) for each further attempt, up to
	// MaxDelay (zero: 30 s).
	InitialDelay, MaxDelay time.Duration
	Multiplier             float64
	// Jitter spreads each delay by up to this fraction either way, so that
	// servers that crashed together do not restart in lockstep; zero means
	// 0.2, negative means none.
	Jitter float64
	// StableAfter is how long a server must have run for its crash not to
	// count against MaxRestarts; zero means one minute.
	StableAfter time.Duration
	// FailFast makes calls made during a restart fail at once with
	// ErrRestarting; by default they wait for the restart (within their
	// context).
	FailFast bool
}

// HealthCheck pings a ready server periodically (Client.Ping: ping, or
// server/discover in 2026-07-28). A server that misses Failures pings in a
// row is killed; the restart policy then restarts it, or it is marked
// failed.
type HealthCheck struct {
	// Interval between pings; zero means 30 s.
	Interval time.Duration
	// Timeout of each ping; zero means 10 s.
	Timeout time.Duration
	// Failures is how many pings in a row must fail; zero means 2.
	Failures int
}

// ProcessOptions configure a Process. The zero value is ready to use.
type ProcessOptions struct {
	// Client configures the MCP client of each run of the server.
	Client *Options
	// StartTimeout bounds the start-up: from starting the program until it
	// answers the first handshake request (zero: DefaultStartTimeout).
	// NpxStartTimeout replaces it for npx commands, whose first run
	// downloads the package (zero: DefaultNpxStartTimeout).
	StartTimeout, NpxStartTimeout time.Duration
	// HandshakeTimeout bounds the rest of the handshake once the server
	// has answered (zero: DefaultHandshakeTimeout).
	HandshakeTimeout time.Duration
	// StopGrace is how long Close waits for the server to exit after its
	// stdin is closed, and KillGrace how long after SIGTERM, before the
	// next step (zero: DefaultStopGrace, DefaultKillGrace).
	StopGrace, KillGrace time.Duration
	// StderrTail is how many of the last bytes of stderr are kept for
	// errors and Stderr (zero: DefaultStderrTail).
	StderrTail int
	// OnStderr receives each line the server writes to stderr, without the
	// line end, on the goroutine that drains it: it must not block for long.
	// The line is as the server wrote it, escape sequences and all: escape
	// it (as StderrLogger's lines are) before showing it on a terminal.
	OnStderr func(line string)
	// StderrLogger, if set, logs each stderr line at Info level, within a
	// rate: a burst of 256 KiB, then 16 KiB a second, each line counted
	// with 128 bytes more for its record. Past it lines are skipped from
	// the log, and their count is logged with the next line logged (and
	// at the end): a server writing lines without end cannot fill the
	// disk the log goes to. OnStderr and the tail keep every line. Each
	// line is logged with the runes a terminal acts on (escape sequences,
	// other controls, a CR, bidirectional overrides) written out as \x1b,
	// \r, \u202e: slog's default handler writes a message as it is, and a
	// server could otherwise drive the terminal the log is shown on.
	StderrLogger *slog.Logger
	// OnExit is called each time the server process ends, before any
	// restart. It must not call Close.
	OnExit func(*ExitError)
	// OnStateChange is called at each change of state; err says why for
	// StateRestarting and StateFailed. It must not call Close.
	OnStateChange func(s State, err error)
	// Restart, if set, restarts the server when it crashes.
	Restart *RestartPolicy
	// Health, if set, pings the server to find one that hangs.
	Health *HealthCheck
	// MaxMessageSize bounds a message from the server (zero:
	// transport.DefaultMaxMessageSize).
	MaxMessageSize int
	// WriteTimeout bounds the writing of each message to the server's
	// stdin (zero: transport.DefaultWriteTimeout, 30 s; negative: no
	// bound). A server that takes nothing for that long has stopped
	// reading: the connection fails, pending calls get an error matching
	// transport.ErrWriteTimeout, and the server is stopped (and restarted
	// under Restart).
	WriteTimeout time.Duration
	// StartLimit, if set, bounds the starts at once of the processes
	// launched with it, this one's first start and its restarts included
	// (see StartLimit); nil means no bound. A Manager sets every server's
	// to its own: this field of its Process template if set, else one
	// made from ManagerOptions.MaxConcurrentStarts.
	StartLimit *StartLimit
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Process is an MCP server running as a child process, and the client
// connected to it. It owns the process: it drains its stderr, notices its
// exit at once (failing pending calls with the exit status), restarts it if
// asked to, and Close stops it and everything it started.
//
// The server's life is not tied to the context given to Launch; that
// bounds only the start-up.
type Process struct {
	spec   Command
	opts   ProcessOptions
	log    *slog.Logger
	ccfg   childConfig
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	// callOpts are the client's options as far as a call's timeout goes,
	// and timeoutErr the error of its expiry, made once (bound).
	callOpts   Options
	timeoutErr error

	mu       sync.Mutex
	state    State
	err      error // why it failed
	cur      *incarnation
	changed  chan struct{} // closed and replaced at each change of state
	final    chan struct{} // closed on Stopped or Failed
	closing  bool
	restarts int
	lastTail []byte // stderr tail of the last run that ended
	tools    []*mcp.Tool
	toolsOK  bool
	toolsGen uint64

	closeOnce sync.Once
	wg        sync.WaitGroup // supervisor and health loop
}

// incarnation is one run of the server.
type incarnation struct {
	ch      *child
	c       *Client
	started time.Time
	reason  atomic.Pointer[error] // why we killed it, if we did
}

// Launch starts the server, performs the handshake and returns once the
// server is ready. ctx bounds only the start-up, together with the
// timeouts of opts; the server runs until Close. If the server exits during
// start-up the error unwraps to an *ExitError with its status and stderr.
func Launch(ctx context.Context, cmd *Command, opts *ProcessOptions) (*Process, error) {
	p := newProcess(cmd, opts)
	inc, err := p.launch(ctx)
	if err != nil {
		p.cancel()
		return nil, err
	}
	p.mu.Lock()
	p.cur = inc
	p.mu.Unlock()
	p.setState(StateReady, nil)
	p.wg.Add(1)
	go p.supervise(inc)
	if p.opts.Health != nil {
		p.wg.Add(1)
		go p.healthLoop()
	}
	return p, nil
}

func newProcess(cmd *Command, opts *ProcessOptions) *Process {
	p := &Process{spec: *cmd, changed: make(chan struct{}), final: make(chan struct{})}
	p.spec.Args = append([]string(nil), cmd.Args...)
	p.spec.Env = append([]string(nil), cmd.Env...)
	if opts != nil {
		p.opts = *opts
	}
	o := &p.opts
	setDefault(&o.StartTimeout, DefaultStartTimeout)
	setDefault(&o.NpxStartTimeout, DefaultNpxStartTimeout)
	setDefault(&o.HandshakeTimeout, DefaultHandshakeTimeout)
	setDefault(&o.StopGrace, DefaultStopGrace)
	setDefault(&o.KillGrace, DefaultKillGrace)
	if o.StderrTail <= 0 {
		o.StderrTail = DefaultStderrTail
	}
	if r := o.Restart; r != nil {
		rp := *r
		if rp.MaxRestarts == 0 {
			rp.MaxRestarts = 5
		}
		setDefault(&rp.InitialDelay, 200*time.Millisecond)
		setDefault(&rp.MaxDelay, 30*time.Second)
		setDefault(&rp.StableAfter, time.Minute)
		if rp.Multiplier < 1 {
			rp.Multiplier = 2
		}
		if rp.Jitter == 0 {
			rp.Jitter = 0.2
		}
		o.Restart = &rp
	}
	if h := o.Health; h != nil {
		hc := *h
		setDefault(&hc.Interval, 30*time.Second)
		setDefault(&hc.Timeout, 10*time.Second)
		if hc.Failures <= 0 {
			hc.Failures = 2
		}
		o.Health = &hc
	}
	p.log = o.Logger
	if p.log == nil {
		p.log = slog.Default()
	}
	p.ccfg = childConfig{tail: o.StderrTail, onLine: o.OnStderr, log: p.log, lineLog: o.StderrLogger}
	if o.Client != nil {
		p.callOpts = Options{Timeout: o.Client.Timeout, timeoutSetting: o.Client.timeoutSetting}
	}
	if d := p.callOpts.timeout(); d > 0 {
		p.timeoutErr = fmt.Errorf("%w after %v (%s)", ErrTimeout, d, p.callOpts.timeoutName())
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// launch starts one run of the server and performs the handshake.
func (p *Process) launch(ctx context.Context) (*incarnation, error) {
	name := p.spec.name()
	// The slot is taken before the program runs and the start-up timeout
	// counts, so that a start waiting its turn does not time out; ctx
	// bounds the wait.
	if err := p.opts.StartLimit.acquire(ctx); err != nil {
		return nil, fmt.Errorf("client: starting %s: %w", name, err)
	}
	defer p.opts.StartLimit.release()
	ch, err := startChild(&p.spec, p.ccfg)
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// Two phases: until the first answer (start-up, which for npx may
	// include a download), then the rest of the handshake.
	// The errors name the setting that expired, so that the reader knows
	// what to raise.
	startTO, startSetting := p.opts.StartTimeout, "ProcessOptions.StartTimeout"
	if p.spec.IsNpx() {
		startTO, startSetting = p.opts.NpxStartTimeout, "ProcessOptions.NpxStartTimeout"
	}
	var tmu sync.Mutex
	var hsTimer *time.Timer
	startTimer := time.AfterFunc(startTO, func() {
		cancel(fmt.Errorf("%w: no answer within %v (%s)", ErrStartTimeout, startTO, startSetting))
	})
	ch.firstFrame = func() {
		if startTimer.Stop() {
			tmu.Lock()
			hsTimer = time.AfterFunc(p.opts.HandshakeTimeout, func() {
				cancel(fmt.Errorf("%w: not done within %v (ProcessOptions.HandshakeTimeout)", ErrHandshakeTimeout, p.opts.HandshakeTimeout))
			})
			tmu.Unlock()
		}
	}
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case <-ch.exited:
			cancel(ch.exitErr)
		case <-p.ctx.Done():
			cancel(ErrStopped)
		case <-hctx.Done():
		}
	}()

	copts := p.clientOptions()
	stream := transport.NewStream(newChildFramer(ch, p.opts.MaxMessageSize, p.log), &transport.StreamOptions{Logger: copts.Logger, WriteTimeout: p.opts.WriteTimeout})
	c, err := Connect(hctx, stream, copts)
	startTimer.Stop()
	tmu.Lock()
	if hsTimer != nil {
		hsTimer.Stop()
	}
	tmu.Unlock()
	cause := context.Cause(hctx)
	cancel(nil)
	<-watchDone
	if err == nil {
		return &incarnation{ch: ch, c: c, started: time.Now()}, nil
	}

	// Connect closed the stream, and with it the server's stdin.
	if errors.Is(cause, ErrStartTimeout) || errors.Is(cause, ErrHandshakeTimeout) || errors.Is(cause, ErrStopped) || ctx.Err() != nil {
		ch.kill()
		ch.waitExited(killWait)
	} else {
		ch.shutdown(p.opts.StopGrace, p.opts.KillGrace)
	}
	p.rememberTail(ch)
	// For npx, npm's own error (often pages of it) is read for the cause,
	// which goes first in the message, with what to do.
	var why error
	if p.spec.IsNpx() {
		why = npmCause(ch.tail.Bytes(), hasProxy(p.spec.environ()))
	}
	if ch.exitErr != nil && !ch.exitErr.Stopped {
		if why != nil {
			return nil, fmt.Errorf("client: %s exited during start-up: %w: %w", name, why, ch.exitErr)
		}
		return nil, fmt.Errorf("client: %s exited during start-up: %w", name, ch.exitErr)
	}
	if why != nil {
		err = fmt.Errorf("%w: %w", why, err)
	}
	if tail, _ := stderrExcerpt(ch.tail.Bytes()); tail != "" {
		return nil, fmt.Errorf("client: starting %s: %w; stderr ends:\n%s", name, err, tail)
	}
	return nil, fmt.Errorf("client: starting %s: %w", name, err)
}

func (p *Process) rememberTail(ch *child) {
	tail := ch.tail.Bytes()
	p.mu.Lock()
	p.lastTail = tail
	p.mu.Unlock()
}

// clientOptions are the client's options with the Process's hooks added.
func (p *Process) clientOptions() *Options {
	var o Options
	if p.opts.Client != nil {
		o = *p.opts.Client
	}
	if o.Logger == nil {
		o.Logger = p.log
	}
	user := o.OnToolsChanged
	o.OnToolsChanged = func() {
		p.invalidateTools()
		if user != nil {
			user()
		}
	}
	return &o
}

// setState records a change of state and tells whoever waits or listens.
func (p *Process) setState(s State, err error) {
	p.mu.Lock()
	if p.state == s || p.state == StateStopped || p.state == StateFailed {
		p.mu.Unlock()
		return
	}
	p.state = s
	if s == StateFailed {
		p.err = err
	}
	close(p.changed)
	p.changed = make(chan struct{})
	if s == StateStopped || s == StateFailed {
		close(p.final)
	}
	p.mu.Unlock()
	if s == StateFailed || s == StateRestarting {
		p.log.Warn("mcp client: server "+s.String(), "server", p.spec.name(), "err", err)
	}
	if p.opts.OnStateChange != nil {
		p.opts.OnStateChange(s, err)
	}
}

// supervise watches one run after another: it turns an exit into failed
// calls at once, reports it, and restarts if the policy says so.
func (p *Process) supervise(inc *incarnation) {
	defer p.wg.Done()
	failures := 0
	for {
		select {
		case <-inc.ch.exited:
		case <-inc.c.Done():
			// The connection ended under a live server (it closed its
			// stdout, or sent what cannot be read): it is of no use.
			if !p.isClosing() {
				inc.ch.shutdown(p.opts.StopGrace, p.opts.KillGrace)
			}
			<-inc.ch.exited
		}
		exitErr := inc.ch.exitErr
		var cause error = exitErr
		if r := inc.reason.Load(); r != nil {
			cause = fmt.Errorf("%w: %w", *r, exitErr)
		}
		p.rememberTail(inc.ch)

		p.mu.Lock()
		closing := p.closing
		if !closing {
			p.cur = nil
		}
		p.mu.Unlock()
		// Pending calls fail now, with the exit status and stderr tail; the
		// exit is reported before the state changes, so that whoever waits
		// on Done has seen OnExit.
		inc.c.closeWithError(cause)
		if p.opts.OnExit != nil {
			p.opts.OnExit(exitErr)
		}
		if !closing {
			if p.opts.Restart != nil {
				p.setState(StateRestarting, cause)
			} else {
				p.setState(StateFailed, cause)
			}
		}
		if closing || p.opts.Restart == nil {
			return
		}

		if time.Since(inc.started) >= p.opts.Restart.StableAfter {
			failures = 0
		}
		next, err := p.restart(&failures, cause)
		if err != nil {
			p.setState(StateFailed, err)
			return
		}
		if next == nil {
			return // closed meanwhile
		}
		inc = next
	}
}

// restart brings the server back, retrying with backoff. It returns nil,
// nil if the Process was closed meanwhile.
func (p *Process) restart(failures *int, cause error) (*incarnation, error) {
	rp := p.opts.Restart
	for {
		*failures++
		if rp.MaxRestarts > 0 && *failures > rp.MaxRestarts {
			// Client and Status put the server's name before this.
			return nil, fmt.Errorf("gave up after %d restarts: %w", *failures-1, cause)
		}
		delay := backoff(rp, *failures)
		p.log.Info("mcp client: restarting server", "server", p.spec.name(), "attempt", *failures, "delay", delay)
		t := time.NewTimer(delay)
		select {
		case <-p.ctx.Done():
			t.Stop()
			return nil, nil
		case <-t.C:
		}
		inc, err := p.launch(p.ctx)
		if err != nil {
			if p.ctx.Err() != nil {
				return nil, nil
			}
			cause = err
			continue
		}
		p.refreshTools(inc)
		p.mu.Lock()
		if p.closing {
			p.mu.Unlock()
			inc.c.closeWithError(ErrStopped)
			inc.ch.shutdown(p.opts.StopGrace, p.opts.KillGrace)
			return nil, nil
		}
		p.cur = inc
		p.restarts++
		p.mu.Unlock()
		p.log.Info("mcp client: server restarted", "server", p.spec.name(), "pid", inc.ch.pid())
		p.setState(StateReady, nil)
		return inc, nil
	}
}

// backoff is the delay before the nth attempt (n >= 1).
func backoff(rp *RestartPolicy, n int) time.Duration {
	d := float64(rp.InitialDelay)
	for i := 1; i < n && d < float64(rp.MaxDelay); i++ {
		d *= rp.Multiplier
	}
	d = min(d, float64(rp.MaxDelay))
	if rp.Jitter > 0 {
		d *= 1 + rp.Jitter*(2*rand.Float64()-1)
	}
	return time.Duration(d)
}

// refreshTools re-reads the tool list after a restart if it was cached:
// the new run may offer other tools.
func (p *Process) refreshTools(inc *incarnation) {
	p.mu.Lock()
	had := p.toolsOK || p.tools != nil
	p.toolsGen++
	p.toolsOK = false
	gen := p.toolsGen
	p.mu.Unlock()
	if !had {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.opts.HandshakeTimeout)
	defer cancel()
	tools, err := inc.c.ListTools(ctx)
	if err != nil {
		p.log.Warn("mcp client: listing tools after a restart", "server", p.spec.name(), "err", err)
		return
	}
	p.mu.Lock()
	if p.toolsGen == gen {
		p.tools, p.toolsOK = tools, true
	}
	p.mu.Unlock()
}

func (p *Process) invalidateTools() {
	p.mu.Lock()
	p.toolsGen++
	p.toolsOK = false
	p.mu.Unlock()
}

// healthLoop pings the ready server and kills it once it misses enough
// pings in a row.
func (p *Process) healthLoop() {
	defer p.wg.Done()
	h := p.opts.Health
	t := time.NewTicker(h.Interval)
	defer t.Stop()
	misses := 0
	var last *incarnation
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-p.final:
			return
		case <-t.C:
		}
		p.mu.Lock()
		inc, ready := p.cur, p.state == StateReady
		p.mu.Unlock()
		if !ready || inc == nil {
			continue
		}
		if inc != last {
			last, misses = inc, 0
		}
		ctx, cancel := context.WithTimeout(p.ctx, h.Timeout)
		err := inc.c.Ping(ctx)
		cancel()
		if err == nil || p.ctx.Err() != nil || inc.c.conn.Err() != nil || inc.ch.stopping.Load() {
			// Answered, or the run is over and the supervisor has it.
			misses = 0
			continue
		}
		misses++
		p.log.Warn("mcp client: health check failed", "server", p.spec.name(), "misses", misses, "err", err)
		if misses >= h.Failures {
			reason := fmt.Errorf("%w: %d pings in a row failed, the last with: %w", ErrUnresponsive, misses, err)
			inc.reason.Store(&reason)
			inc.ch.kill()
			misses = 0
		}
	}
}

func (p *Process) isClosing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closing
}

// Close stops the server: it closes the server's stdin and waits
// (StopGrace), sends SIGTERM to its process group and waits (KillGrace),
// then sends SIGKILL to the group and reaps the process. On Windows the
// whole Job Object is terminated after StopGrace. Pending calls fail with
// ErrClosed. Close returns within StopGrace + KillGrace + a few seconds
// whatever the server does, and is safe to call more than once.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closing = true
		inc := p.cur
		p.mu.Unlock()
		p.cancel()
		if inc != nil {
			inc.c.closeWithError(ErrStopped)
			inc.ch.shutdown(p.opts.StopGrace, p.opts.KillGrace)
		}
		p.wg.Wait()
		p.setState(StateStopped, nil)
	})
	return nil
}

// Client returns the client of the running server. While the server is
// starting or restarting it waits (within ctx), or fails at once with
// ErrRestarting if RestartPolicy.FailFast is set. For a stopped or failed
// Process it returns the error that says why. A returned Client fails its
// calls with the exit status if the server then exits.
func (p *Process) Client(ctx context.Context) (*Client, error) {
	for {
		p.mu.Lock()
		state, inc, changed, err := p.state, p.cur, p.changed, p.err
		p.mu.Unlock()
		switch state {
		case StateReady:
			// A run that just ended is not handed out: the supervisor is
			// about to change the state, and the caller should see the
			// restart (or the failure), not the dead connection.
			if inc != nil && !inc.ch.waitExited(0) && inc.c.conn.Err() == nil {
				return inc.c, nil
			}
		case StateStopped:
			return nil, fmt.Errorf("client: %s: %w", p.spec.name(), ErrStopped)
		case StateFailed:
			return nil, fmt.Errorf("client: %s failed: %w", p.spec.name(), err)
		default:
			if p.opts.Restart != nil && p.opts.Restart.FailFast {
				return nil, fmt.Errorf("client: %s: %w", p.spec.name(), ErrRestarting)
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("client: waiting for %s to restart: %w", p.spec.name(), context.Cause(ctx))
		case <-changed:
		}
	}
}

// State returns the current state.
func (p *Process) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// Err returns why the Process failed, or nil.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Done is closed when the Process has stopped or failed for good.
func (p *Process) Done() <-chan struct{} { return p.final }

// Pid returns the process id of the running server, or 0 when none runs.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		return 0
	}
	return p.cur.ch.pid()
}

// Restarts returns how many times the server was restarted.
func (p *Process) Restarts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// Stderr returns the last bytes the server wrote to stderr: of the running
// server, or of the last run if none runs.
func (p *Process) Stderr() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != nil {
		return p.cur.ch.tail.Bytes()
	}
	return append([]byte(nil), p.lastTail...)
}

// Command returns the command the Process runs.
func (p *Process) Command() Command { return p.spec }

// bound applies the call's timeout (ProcessOptions.Client's Timeout, or
// WithTimeout) from the start of a call, so that it bounds the wait for a
// restart too: a call is one call, whether or not it had to wait for the
// server. Without it a call whose context has no deadline waited for every
// attempt of a server that kept failing to start.
func (p *Process) bound(ctx context.Context, opts []CallOption) (context.Context, context.CancelFunc) {
	var o callOptions
	if len(opts) > 0 {
		o = applyOptions(opts)
	}
	return bound(ctx, o, &p.callOpts, p.timeoutErr)
}

// CallTool calls a tool on the server (see Client.CallTool). A call made
// during a restart waits for it within the call's timeout, as do those of
// Call, Ping and ListTools.
func (p *Process) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*mcp.CallToolResult, error) {
	ctx, cancel := p.bound(ctx, opts)
	defer cancel()
	c, err := p.Client(ctx)
	if err != nil {
		return nil, err
	}
	return c.CallTool(ctx, name, args, opts...)
}

// Call makes a request the typed methods do not cover (see Client.Call).
func (p *Process) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	ctx, cancel := p.bound(ctx, opts)
	defer cancel()
	c, err := p.Client(ctx)
	if err != nil {
		return err
	}
	return c.Call(ctx, method, params, result, opts...)
}

// Ping checks that the server answers (see Client.Ping).
func (p *Process) Ping(ctx context.Context, opts ...CallOption) error {
	ctx, cancel := p.bound(ctx, opts)
	defer cancel()
	c, err := p.Client(ctx)
	if err != nil {
		return err
	}
	return c.Ping(ctx, opts...)
}

// ListTools asks the server for its tools and caches the list for Tools.
func (p *Process) ListTools(ctx context.Context, opts ...CallOption) ([]*mcp.Tool, error) {
	ctx, cancel := p.bound(ctx, opts)
	defer cancel()
	p.mu.Lock()
	gen := p.toolsGen
	p.mu.Unlock()
	c, err := p.Client(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := c.ListTools(ctx, opts...)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.toolsGen == gen {
		p.tools, p.toolsOK = tools, true
	}
	p.mu.Unlock()
	return tools, nil
}

// Tools returns the server's tools, from the cache when it is valid: it is
// refreshed after a restart and dropped when the server says its list
// changed.
func (p *Process) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	p.mu.Lock()
	tools, ok := p.tools, p.toolsOK
	p.mu.Unlock()
	if ok {
		return tools, nil
	}
	return p.ListTools(ctx)
}
