package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/winbridge/winbridge/internal/termtext"
	"github.com/winbridge/winbridge/transport"
)

var execLookPath = exec.LookPath

// ExitError reports that a server process ended: how, and the last of what
// it wrote to standard error. Calls pending when a server exits fail with
// an error that matches ErrClosed and unwraps to an *ExitError.
type ExitError struct {
	// Pid is the process id the server had.
	Pid int
	// Code is the exit status, or -1 when the process was killed by a
	// signal.
	Code int
	// Signal is the signal that killed the process (zero if none, and
	// always on Windows).
	Signal syscall.Signal
	// Stopped is true when the process ended because it was told to (Close,
	// or a failed health check), not on its own.
	Stopped bool
	// Stderr holds the last bytes the process wrote to standard error (see
	// ProcessOptions.StderrTail).
	Stderr []byte
}

// maxStderrInError bounds how much of the stderr tail an error message
// repeats; the whole tail stays in ExitError.Stderr.
const maxStderrInError = 2 << 10

func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Signal != 0 {
		fmt.Fprintf(&b, "server process %d killed by signal %d (%v)", e.Pid, int(e.Signal), e.Signal)
	} else {
		fmt.Fprintf(&b, "server process %d exited with status %d", e.Pid, e.Code)
	}
	if tail, cut := stderrExcerpt(e.Stderr); tail != "" {
		if cut {
			b.WriteString("; stderr ends:\n")
		} else {
			b.WriteString("; stderr:\n")
		}
		// The message reaches terminals and logs: the child's escape
		// sequences are shown, not acted on (ExitError.Stderr keeps the
		// bytes).
		b.WriteString(termtext.Escape(tail))
	}
	return b.String()
}

// stderrExcerpt is the end of a stderr tail for an error message: at most
// maxStderrInError bytes, starting at a line, and whether it was cut.
func stderrExcerpt(tail []byte) (string, bool) {
	tail = bytes.TrimSpace(tail)
	if len(tail) <= maxStderrInError {
		return string(tail), false
	}
	tail = tail[len(tail)-maxStderrInError:]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return string(tail), true
}

// Bounds of the exit bookkeeping: how long the output pipes are drained
// after the process is gone (a grandchild may hold them open), and how
// long a read that hit the end of stdout waits for the exit status that
// explains it.
const (
	drainAfterExit   = 250 * time.Millisecond
	exitAfterStdout  = time.Second
	killWait         = 5 * time.Second
	stderrChunk      = 32 << 10
	maxStderrLineLen = 16 << 10
)

// childConfig is what a child needs from ProcessOptions.
type childConfig struct {
	tail    int
	onLine  func(string)
	log     *slog.Logger // diagnostics
	lineLog *slog.Logger // stderr lines, if wanted
}

// child is one run of a server process: its pipes, its process group (a
// Job Object on Windows), and the goroutines that drain stderr and wait
// for the exit.
type child struct {
	cmd   *exec.Cmd
	name  string
	group procGroup
	log   *slog.Logger

	stdin  *os.File // our write end
	stdout *os.File // our read end
	stderr *os.File // our read end
	tail   *ring

	stdoutDone chan struct{} // reading stdout reached its end
	stderrDone chan struct{} // the stderr drain finished
	exited     chan struct{} // the process is gone and reaped; exitErr is set
	exitErr    *ExitError

	stopping    atomic.Bool // we asked it to go: its exit is not a crash
	stdinOnce   sync.Once
	stdoutOnce  sync.Once
	stdoutEnded sync.Once
	stderrOnce  sync.Once
	framerShut  atomic.Bool // the stream closed its framer: reads end quietly

	firstFrame func() // called once, when the first JSON message arrives
	firstOnce  sync.Once
}

// startChild starts the process with its three pipes and the goroutines
// that watch it. The process is not tied to any context: only Close or
// the process itself ends it.
func startChild(spec *Command, cfg childConfig) (*child, error) {
	path, args, cmdline, err := spec.argv()
	if err != nil {
		return nil, commandLineHint(spec, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = spec.environ()
	cmd.Dir = spec.Dir
	prepareCmd(cmd, cmdline)

	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("client: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("client: %w", err)
	}
	// Passing *os.File directly means the child writes into the pipes
	// itself and Wait never waits on a copying goroutine that a grandchild
	// could keep alive.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, commandLineHint(spec, fmt.Errorf("client: starting %s: %w", spec.name(), err))
	}
	// The child has its copies; ours of its ends would hide its exit.
	inR.Close()
	outW.Close()
	errW.Close()

	ch := &child{
		cmd:        cmd,
		name:       spec.name(),
		log:        cfg.log,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		tail:       newRing(cfg.tail),
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	if err := ch.group.attach(cmd.Process); err != nil {
		// Without a group the tree cannot be killed as one; the process
		// itself still can, so go on and say so.
		ch.log.Warn("mcp client: cannot put the server in its own process group", "server", ch.name, "err", err)
	}
	go ch.drainStderr(cfg)
	go ch.wait()
	return ch, nil
}

// commandLineHint adds to err, a program not found, that a command with
// a space may be a whole command line written as the program ("command":
// "npx -y pkg"): no host splits it, and the arguments go in "args".
func commandLineHint(spec *Command, err error) error {
	if strings.ContainsAny(spec.Path, " \t") && len(spec.Args) == 0 &&
		(errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)) {
		return fmt.Errorf("%w (the program's name has a space: a command line goes in \"command\" and \"args\", one argument each)", err)
	}
	return err
}

// Pid returns the process id.
func (ch *child) pid() int { return ch.cmd.Process.Pid }

// drainStderr reads stderr to its end, always, so that a chatty server
// never blocks on a full pipe. It keeps the tail and passes complete
// lines to the callback and logger.
func (ch *child) drainStderr(cfg childConfig) {
	defer close(ch.stderrDone)
	wantLines := cfg.onLine != nil || cfg.lineLog != nil
	var budget logBudget
	emit := func(line []byte) {
		line = bytes.TrimRight(line, "\r")
		s := string(line)
		if cfg.onLine != nil {
			cfg.onLine(s)
		}
		if cfg.lineLog != nil {
			if !budget.take(len(s), time.Now()) {
				return
			}
			ch.logSkipped(cfg.lineLog, &budget)
			// Escaped: slog's default handler, and many others, write the
			// message as it is, and the log may be a terminal.
			cfg.lineLog.Info(termtext.Escape(s), "server", ch.name, "pid", ch.pid())
		}
	}
	buf := make([]byte, stderrChunk)
	var partial []byte
	for {
		n, err := ch.stderr.Read(buf)
		if n > 0 {
			ch.tail.Write(buf[:n])
			if wantLines {
				data := buf[:n]
				for {
					i := bytes.IndexByte(data, '\n')
					if i < 0 {
						break
					}
					if len(partial) > 0 {
						emit(append(partial, data[:i]...))
						partial = partial[:0]
					} else {
						emit(data[:i])
					}
					data = data[i+1:]
				}
				partial = append(partial, data...)
				if len(partial) > maxStderrLineLen {
					// A line with no end in sight is passed on in pieces.
					emit(partial)
					partial = partial[:0]
				}
			}
		}
		if err != nil {
			break
		}
	}
	if len(partial) > 0 {
		emit(partial)
	}
	if cfg.lineLog != nil {
		ch.logSkipped(cfg.lineLog, &budget)
	}
	ch.stderrOnce.Do(func() { ch.stderr.Close() })
}

// Bounds of what a server's stderr writes into StderrLogger: a burst of
// stderrLogBurst bytes, then stderrLogRate a second, each record counted
// with stderrRecordCost for its own bytes (time, level, attributes). The
// log may be the host's log file (the gateway logs its upstreams' stderr
// so): a server writing short lines without end would otherwise fill the
// disk with more bytes than it wrote. OnStderr and the tail see every
// line regardless.
const (
	stderrLogBurst   = 256 << 10
	stderrLogRate    = 16 << 10
	stderrRecordCost = 128
)

// logBudget is the token bucket of stderr lines logged, and the count of
// those skipped since the last logged.
type logBudget struct {
	tokens  float64
	last    time.Time
	skipped int64
}

// take reports whether a line of n bytes may be logged at now, and counts
// it as skipped if not. The record that reports skipped lines is paid for
// with the line that follows them.
func (b *logBudget) take(n int, now time.Time) bool {
	if b.last.IsZero() {
		b.tokens = stderrLogBurst
	} else {
		b.tokens = min(stderrLogBurst, b.tokens+now.Sub(b.last).Seconds()*stderrLogRate)
	}
	b.last = now
	cost := float64(n + stderrRecordCost)
	if b.skipped > 0 {
		cost += stderrRecordCost
	}
	if b.tokens < cost {
		b.skipped++
		return false
	}
	b.tokens -= cost
	return true
}

// logSkipped reports the lines skipped since the last one logged, if any.
func (ch *child) logSkipped(log *slog.Logger, b *logBudget) {
	if b.skipped > 0 {
		log.Warn("mcp client: skipped server stderr lines over the log rate (16 KiB/s); the tail and OnStderr have them",
			"server", ch.name, "pid", ch.pid(), "skipped", b.skipped)
		b.skipped = 0
	}
}

// wait detects the exit at once, kills what the server left behind in its
// group, reaps it, and records the ExitError before telling anyone.
func (ch *child) wait() {
	// Leftovers (npx's node, anything the server started) have no one to
	// serve now. Killing them before reaping the leader, where the
	// platform allows, means the group id cannot have been reused.
	if waitExit(ch.cmd.Process) {
		ch.group.kill()
		_ = ch.cmd.Wait()
	} else {
		_ = ch.cmd.Wait()
		ch.group.kill()
	}
	ch.group.release()

	// A grandchild killed above closes its copies of the pipes at once;
	// still, do not wait for them forever.
	select {
	case <-ch.stderrDone:
	case <-time.After(drainAfterExit):
		ch.stderrOnce.Do(func() { ch.stderr.Close() })
		<-ch.stderrDone
	}
	e := &ExitError{Pid: ch.pid(), Stopped: ch.stopping.Load(), Stderr: ch.tail.Bytes()}
	e.Code, e.Signal = exitStatus(ch.cmd.ProcessState)
	ch.exitErr = e
	ch.closeStdin()
	close(ch.exited)

	select {
	case <-ch.stdoutDone:
	case <-time.After(drainAfterExit):
	}
	ch.stdoutOnce.Do(func() { ch.stdout.Close() })
}

func (ch *child) closeStdin() { ch.stdinOnce.Do(func() { ch.stdin.Close() }) }

// waitExited reports whether the process is gone within d.
func (ch *child) waitExited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-ch.exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch.exited:
		return true
	case <-t.C:
		return false
	}
}

// shutdown runs the specification's sequence: close stdin and wait, then
// SIGTERM the process group and wait, then SIGKILL the group. It returns
// once the process is reaped, or after the bounded waits if even SIGKILL
// did not take (a process stuck in the kernel).
func (ch *child) shutdown(grace, killGrace time.Duration) {
	ch.stopping.Store(true)
	ch.closeStdin()
	if ch.waitExited(grace) {
		return
	}
	if ch.group.terminate() && ch.waitExited(killGrace) {
		return
	}
	ch.group.kill()
	if !ch.waitExited(killWait) {
		ch.log.Error("mcp client: server process survived SIGKILL", "server", ch.name, "pid", ch.pid())
	}
}

// kill ends the process tree at once (a failed health check, a start-up
// that timed out).
func (ch *child) kill() {
	ch.stopping.Store(true)
	ch.closeStdin()
	ch.group.kill()
}

// stdoutRWC is what the LineFramer reads and writes: the child's stdout
// and stdin. Closing it closes stdin only, the polite request to exit;
// stdout is read on to its end, so the child can never block writing it
// while it shuts down, and is closed once the child is gone.
type stdoutRWC struct{ ch *child }

func (r stdoutRWC) Read(p []byte) (int, error)  { return r.ch.stdout.Read(p) }
func (r stdoutRWC) Write(p []byte) (int, error) { return r.ch.stdin.Write(p) }
func (r stdoutRWC) Close() error {
	r.ch.framerShut.Store(true)
	r.ch.closeStdin()
	return nil
}

// childFramer reads the child's stdout as newline-delimited JSON, dropping
// lines that are not JSON, and turns the end of stdout into the reason:
// the child's exit status.
//
// Why drop rather than answer: a server that prints a banner or a log line
// to stdout is broken but common, and the line was never meant as a
// message; an error reply would only confuse the server. Lines that do not
// start with '{' or '[' are dropped, and so are short ones (up to
// maxJunkCheck bytes) that are not valid JSON; longer lines go to the
// Stream, which checks them anyway and answers a parse error.
type childFramer struct {
	lf      *transport.LineFramer
	ch      *child
	log     *slog.Logger
	dropped atomic.Int64
}

// maxJunkCheck is the longest line checked for being JSON before the
// Stream sees it; checking costs a pass over the line, which is nothing
// for short lines and not worth it for long ones, which are real messages.
const maxJunkCheck = 64 << 10

func newChildFramer(ch *child, maxSize int, log *slog.Logger) *childFramer {
	return &childFramer{lf: transport.NewLineFramer(stdoutRWC{ch}, maxSize), ch: ch, log: log}
}

// ReadFrame implements transport.Framer.
func (f *childFramer) ReadFrame() ([]byte, error) {
	for {
		b, err := f.lf.ReadFrame()
		if err != nil {
			var tl *transport.TooLargeError
			if errors.As(err, &tl) {
				return nil, err
			}
			return nil, f.end(err)
		}
		if (b[0] != '{' && b[0] != '[') || (len(b) <= maxJunkCheck && !json.Valid(b)) {
			// Warned of for the 1st, 2nd, 4th, 8th... line only: a server
			// writing junk without end (two bytes a line) would otherwise
			// write a record a line into the user's log, a hundred times
			// the bytes it sent, as long as it ran.
			if n := f.dropped.Add(1); n&(n-1) == 0 {
				f.log.Warn("mcp client: server wrote a non-JSON line to stdout; skipped",
					"server", f.ch.name, "line", truncate(b, 200), "skipped", n)
			}
			continue
		}
		if f.ch.firstFrame != nil {
			f.ch.firstOnce.Do(f.ch.firstFrame)
		}
		return b, nil
	}
}

// end explains why stdout ended: the exit status, once known.
func (f *childFramer) end(err error) error {
	f.ch.stdoutEnded.Do(func() { close(f.ch.stdoutDone) })
	if f.ch.framerShut.Load() {
		return io.EOF // we closed the stream; nothing to explain
	}
	if f.ch.waitExited(exitAfterStdout) {
		return f.ch.exitErr
	}
	if errors.Is(err, io.EOF) {
		return errors.New("server closed its standard output")
	}
	return err
}

// WriteFrame implements transport.Framer.
func (f *childFramer) WriteFrame(msg []byte) error {
	if err := f.lf.WriteFrame(msg); err != nil {
		// A broken pipe means the child closed its stdin, nearly always by
		// exiting: give the exit a moment to be reaped, so the error says
		// why (its status and stderr) rather than only "broken pipe".
		wait := time.Duration(0)
		if errors.Is(err, syscall.EPIPE) {
			wait = exitAfterStdout
		}
		if f.ch.waitExited(wait) {
			return fmt.Errorf("%w: %w", err, f.ch.exitErr)
		}
		return err
	}
	return nil
}

// Close implements transport.Framer: it closes the child's stdin.
func (f *childFramer) Close() error { return f.lf.Close() }

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// ring keeps the last bytes written to it.
type ring struct {
	mu   sync.Mutex
	buf  []byte
	pos  int // next write position once full
	full bool
}

func newRing(size int) *ring { return &ring{buf: make([]byte, 0, size)} }

// Write implements io.Writer; it never fails and never blocks for long.
func (r *ring) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	size := cap(r.buf)
	if size == 0 {
		return n, nil
	}
	if len(p) >= size {
		p = p[len(p)-size:]
		r.buf = append(r.buf[:0], p...)
		r.pos, r.full = 0, true
		return n, nil
	}
	if !r.full {
		room := size - len(r.buf)
		if len(p) <= room {
			r.buf = append(r.buf, p...)
			return n, nil
		}
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		r.full, r.pos = true, 0
	}
	for len(p) > 0 {
		c := copy(r.buf[r.pos:], p)
		p = p[c:]
		r.pos = (r.pos + c) % size
	}
	return n, nil
}

// Bytes returns a copy of what the ring holds, oldest first.
func (r *ring) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]byte(nil), r.buf...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}
