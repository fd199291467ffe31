package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/winbridge/winbridge/winexec"
)

// Errors of a Session.
var (
	// ErrClosed is returned by Eval after Close.
	ErrClosed = errors.New("the cdb session is closed")
	// ErrKilled is wrapped by Close when cdb did not exit within the grace
	// period after the quit command and its process tree was killed.
	ErrKilled = errors.New("cdb was killed")
)

// Result is what one command produced.
type Result struct {
	// Output is the command's output without prompts and markers, decoded.
	Output string
	// Dropped counts bytes of output beyond Config.MaxOutput.
	Dropped int
	// TimedOut reports that the command did not finish within the timeout
	// (or its caller gave up); Output is what it printed until then.
	TimedOut bool
	// Ended says why the session ended during the command, if it did
	// ("" otherwise); the next command opens a new session.
	Ended string
	// Kept reports, for a timed-out command, that cdb answered the
	// interrupt and the session (with its state) lives on.
	Kept bool
}

// Session is one cdb process and the commands run in it, one at a time.
// It is opened by Open or by the first Eval, reopened by the next Eval if
// cdb went away, and ended by Close.
type Session struct {
	cfg   Config
	log   *slog.Logger
	scrub func(string) string // masks the secrets of cfg in what cdb prints

	turn    chan struct{} // one token: its holder may use p and closed
	closing chan struct{} // closed by Close: the command in flight gives up
	p       *proc         // the running cdb, or nil
	closed  bool          // guarded by turn
}

// NewSession returns a session for cfg; nothing starts until Open or Eval.
func NewSession(cfg Config, log *slog.Logger) *Session {
	if log == nil {
		log = slog.Default()
	}
	return &Session{cfg: cfg, log: log, turn: make(chan struct{}, 1), closing: make(chan struct{}),
		scrub: scrubber(append([]string{cfg.Remote}, cfg.Args...)...)}
}

// acquire takes the turn, unless ctx ends first.
func (s *Session) acquire(ctx context.Context) error {
	select {
	case s.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the command before: %w", context.Cause(ctx))
	}
}

func (s *Session) release() { <-s.turn }

// Open starts cdb, if it is not running, and waits for its first prompt.
func (s *Session) Open(ctx context.Context) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	_, err := s.ensure(ctx)
	return err
}

// ensure returns the running cdb, starting one if there is none. The
// caller holds the turn.
func (s *Session) ensure(ctx context.Context) (*proc, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if s.p != nil && !s.p.dead() {
		return s.p, nil
	}
	s.discard()
	argv, err := s.cfg.Argv()
	if err != nil {
		return nil, err
	}
	p, err := startProc(argv)
	if err != nil {
		return nil, fmt.Errorf("opening the cdb session on %s: %w", s.cfg.Target(), err)
	}
	s.log.Info("windbg: cdb started", "pid", p.pid(), "target", s.cfg.Target(), "argv", redactArgv(argv))
	// The banner and the loading of the target end with the first prompt;
	// a marker after it says when.
	marker := newMarker()
	c := newCollector(marker, "", s.cfg.MaxOutput)
	st := s.run(ctx, p, c, ".echo "+marker, s.cfg.StartTimeout)
	if st != finished {
		p.kill()
		p.release()
		c.partial(p.pending)
		out := s.scrub(winexec.Decode([]byte(c.text()), s.cfg.CodePage))
		if st == exited {
			return nil, fmt.Errorf("cdb exited before its first prompt (%v); its output:\n%s", exitText(p.err), out)
		}
		return nil, fmt.Errorf("cdb showed no prompt within %v (%s); its output so far:\n%s", s.cfg.StartTimeout, st, out)
	}
	s.log.Debug("windbg: cdb ready", "banner", s.scrub(c.text()))
	s.p = p
	return p, nil
}

// discard forgets a cdb that has gone away, or is abandoned. The caller
// holds the turn.
func (s *Session) discard() {
	if s.p != nil {
		if !s.p.dead() {
			s.p.kill()
		}
		s.p.release()
		s.p = nil
	}
}

// status is how waiting for a marker ended.
type status int

const (
	finished  status = iota // the marker arrived
	timedOut                // the timer fired
	cancelled               // the caller gave up, or the session is closing
	exited                  // cdb went away
)

func (st status) String() string {
	return [...]string{"finished", "timed out", "cancelled", "exited"}[st]
}

// run sends a line and collects its output until the marker, the limit,
// ctx or the session's end.
func (s *Session) run(ctx context.Context, p *proc, c *collector, line string, limit time.Duration) status {
	if err := p.send(line); err != nil {
		// cdb has gone, or is going: its stdin is closed. What it wrote
		// before (why it would not start, say) is still in the pipe; take
		// it, waiting a moment for the exit, so that the caller can show it.
		s.log.Debug("windbg: send", "err", err)
		wait := time.NewTimer(min(limit, time.Second))
		defer wait.Stop()
		select {
		case <-p.exited:
			s.drain(p, c)
		case <-wait.C:
		case <-ctx.Done():
		}
		return exited
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	return s.collect(ctx, p, c, timer.C, s.closing)
}

// collect reads cdb's output into c until the marker line, or until stop
// fires, ctx ends, closing is closed or cdb goes away.
func (s *Session) collect(ctx context.Context, p *proc, c *collector, stop <-chan time.Time, closing <-chan struct{}) status {
	p.pending = c.feed(p.pending)
	for !c.done {
		select {
		case data, ok := <-p.chunks:
			if !ok {
				return exited
			}
			p.pending = c.feed(append(p.pending, data...))
		case <-p.exited:
			s.drain(p, c)
			if c.done {
				return finished
			}
			return exited
		case <-stop:
			return timedOut
		case <-ctx.Done():
			return cancelled
		case <-closing:
			return cancelled
		}
	}
	return finished
}

// drain takes the output cdb wrote before it exited. A grandchild may hold
// the pipe open, so the wait is bounded.
func (s *Session) drain(p *proc, c *collector) {
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	for !c.done {
		select {
		case data, ok := <-p.chunks:
			if !ok {
				return
			}
			p.pending = c.feed(append(p.pending, data...))
		case <-timer.C:
			return
		}
	}
}

// Eval runs one debugger command and returns its output. Commands run one
// at a time; a second caller waits for its turn (or for its ctx). The
// command must be one non-empty ASCII line that the Config's policy
// allows (see Config.CheckCommand); it is checked
// before anything is sent. A command that does not finish within the
// timeout is interrupted; if cdb does not answer the interrupt within the
// grace period its process tree is killed and the next command opens a
// new session. Either way the Result holds the output so far.
func (s *Session) Eval(ctx context.Context, command string) (*Result, error) {
	if err := s.cfg.CheckCommand(command); err != nil {
		return nil, err
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release()
	p, err := s.ensure(ctx)
	if err != nil {
		return nil, err
	}
	marker := newMarker()
	c := newCollector(marker, command, s.cfg.MaxOutput)
	if err := p.send(command); err != nil {
		s.discard()
		return nil, err
	}
	res := &Result{}
	switch st := s.run(ctx, p, c, ".echo "+marker, s.cfg.Timeout); st {
	case finished:
	case exited:
		c.partial(p.pending)
		s.discard() // waits for the exit status
		res.Ended = fmt.Sprintf("cdb exited during the command (%v)", exitText(p.err))
		s.log.Warn("windbg: cdb exited during a command", "command", command, "err", p.err)
	default:
		res.TimedOut = true
		res.Kept, res.Ended = s.abandon(p, c, st)
		c.partial(p.pending)
		p.pending = nil
	}
	res.Output = s.scrub(winexec.Decode([]byte(c.text()), s.cfg.CodePage))
	res.Dropped = c.dropped
	return res, nil
}

// abandon deals with a command that did not finish: cdb is interrupted
// and given the grace period to come back to its prompt (and print the
// marker); otherwise its tree is killed. It reports whether the session
// survives, or why it ended.
func (s *Session) abandon(p *proc, c *collector, why status) (kept bool, ended string) {
	if err := interrupt(p.cmd); err == nil {
		timer := time.NewTimer(s.cfg.Grace)
		st := s.collect(context.Background(), p, c, timer.C, nil)
		timer.Stop()
		if st == finished {
			s.log.Info("windbg: command interrupted; the session goes on", "reason", why)
			return true, ""
		}
	}
	s.log.Warn("windbg: command abandoned; killing cdb", "reason", why, "pid", p.pid())
	s.discard()
	return false, fmt.Sprintf("cdb did not come back to its prompt within %v of an interrupt, so its process tree was killed", s.cfg.Grace)
}

// Close ends the session: it stops the command in flight (as a timeout
// would), sends the quit command (q, qd or CTRL+B; see
// Config.QuitCommand), and kills cdb's process tree if it has not exited
// within the grace period, in which case the error wraps ErrKilled. Close
// is idempotent; later Evals return ErrClosed.
func (s *Session) Close(ctx context.Context) error {
	select {
	case <-s.closing:
	default:
		close(s.closing)
	}
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	if s.closed {
		return nil
	}
	s.closed = true
	p := s.p
	if p == nil {
		return nil
	}
	s.p = nil
	defer p.release()
	if p.dead() {
		return nil
	}
	quit := s.cfg.QuitCommand()
	if err := p.send(quit); err != nil {
		s.log.Debug("windbg: sending the quit command", "err", err)
	}
	timer := time.NewTimer(s.cfg.Grace)
	defer timer.Stop()
	select {
	case <-p.exited:
		s.log.Info("windbg: cdb exited", "quit", printable(quit), "status", exitText(p.err))
		return nil
	case <-timer.C:
	case <-ctx.Done():
	}
	s.log.Warn("windbg: cdb did not exit after the quit command; killing its process tree", "quit", printable(quit), "pid", p.pid())
	p.kill()
	return fmt.Errorf("cdb did not exit within %v of %q: %w", s.cfg.Grace, printable(quit), ErrKilled)
}

// exitText describes a Wait error; nil is a clean exit.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// printable shows a quit line with its control characters spelled out.
func printable(s string) string {
	return strings.ReplaceAll(s, ctrlB, "CTRL+B")
}
