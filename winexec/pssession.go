package winexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// psSession is one running PowerShell process executing Bootstrap.
type psSession struct {
	cmd    *exec.Cmd
	stdin  *os.File
	wmu    sync.Mutex // serialises request and cancel lines on stdin
	frames chan frame
	rerr   error // why frames was closed; read after it is
	stderr *capture
	smu    sync.Mutex // guards stderr against the copying goroutine
	exited chan struct{}
	dead   chan struct{}
	once   sync.Once
	cp     int
	log    *slog.Logger
}

// startSession starts exe with PowerShellArgs. Pipes are plain os.Pipe
// files so that reading stdout never races with Wait.
func startSession(exe, dir string, env []string, log *slog.Logger) (*psSession, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	s := &psSession{
		stdin:  inW,
		frames: make(chan frame, 16),
		stderr: newCapture(64 << 10),
		exited: make(chan struct{}),
		dead:   make(chan struct{}),
		log:    log,
	}
	cmd := exec.Command(exe, PowerShellArgs()...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = lockedWriter{&s.smu, s.stderr}
	s.cmd = cmd
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, &StartError{Exe: exe, Err: err}
	}
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	fr := newFrameReader(outR)
	fr.onNoise = func(line []byte) { log.Debug("winexec: powershell wrote non-protocol output", "line", string(line)) }
	go func() {
		defer outR.Close()
		defer close(s.frames)
		for {
			f, err := fr.next()
			if err != nil {
				s.rerr = err
				return
			}
			select {
			case s.frames <- f:
			case <-s.dead:
				s.rerr = ErrHostDied
				return
			}
		}
	}()
	return s, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *capture
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *psSession) stderrText() string {
	s.smu.Lock()
	defer s.smu.Unlock()
	return strings.TrimSpace(s.stderr.output().Text(0))
}

// hostErr describes why the host failed, with what it printed on stderr.
func (s *psSession) hostErr(why error) error {
	if e := s.stderrText(); e != "" {
		return fmt.Errorf("%w: %w; stderr: %s", ErrHostDied, why, e)
	}
	return fmt.Errorf("%w: %w", ErrHostDied, why)
}

// waitReady reads the ready frame, proving the bootstrap runs.
func (s *psSession) waitReady(ctx context.Context, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case f, ok := <-s.frames:
		switch {
		case !ok:
			s.settle()
			return s.hostErr(s.rerr)
		case f.T != "ready":
			return fmt.Errorf("%w: first frame %q, want ready", ErrProtocol, f.T)
		}
		s.cp = f.CP
		return nil
	case <-t.C:
		return s.hostErr(fmt.Errorf("no ready frame within %v", timeout))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// settle gives a host whose stdout ended a moment to exit, so that its
// stderr (usually the reason) is complete; a host that broke the protocol
// but lives on is killed by the caller.
func (s *psSession) settle() {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
	}
}

func (s *psSession) write(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.stdin.Write(line)
	return err
}

// do runs one request. Any error leaves the session unusable; the caller
// must kill it.
func (s *psSession) do(ctx context.Context, wr *wireRequest, maxOut int, grace time.Duration) (*Result, error) {
	line, err := json.Marshal(wr)
	if err != nil {
		return nil, err
	}
	line = append(line, '\n')
	werr := make(chan error, 1)
	go func() { werr <- s.write(line) }()

	stdout, stderr := newCapture(maxOut), newCapture(maxOut)
	start := time.Now()
	partial := func() *Result {
		return &Result{ExitCode: -1, Stdout: stdout.output(), Stderr: stderr.output(), Duration: time.Since(start), CodePage: s.cp}
	}
	var hard <-chan time.Time
	if wr.TimeoutMs > 0 {
		t := time.NewTimer(time.Duration(wr.TimeoutMs)*time.Millisecond + grace)
		defer t.Stop()
		hard = t.C
	}
	ctxDone := ctx.Done()
	var cancelHard <-chan time.Time
	for {
		select {
		case f, ok := <-s.frames:
			if !ok {
				s.settle()
				return partial(), s.hostErr(s.rerr)
			}
			if f.T == "ready" {
				s.cp = f.CP
				continue
			}
			if f.ID != wr.ID {
				return partial(), fmt.Errorf("%w: frame for request %d during request %d", ErrProtocol, f.ID, wr.ID)
			}
			switch f.T {
			case "o":
				stdout.Write(f.D)
			case "e":
				stderr.Write(f.D)
			case "x":
				if f.Err != nil {
					return nil, &StartError{Exe: string(wr.Exe), Err: errors.New(string(f.Err))}
				}
				res := partial()
				// Windows exit codes are DWORDs; show them as int32 like
				// .NET and %ERRORLEVEL% do.
				res.ExitCode = int(int32(uint32(f.Code)))
				res.TimedOut = f.TimedOut
				// ctxDone is nil once a cancel line was sent. If the
				// program ended by itself meanwhile, that line may still
				// be on its way, and the bootstrap takes any line during
				// a request as its cancel: reused, this host would kill
				// the next call's program. Report the cancellation, so
				// the caller discards the host.
				if (f.Cancelled || ctxDone == nil) && ctx.Err() != nil {
					return res, ctx.Err()
				}
				return res, nil
			default:
				return partial(), fmt.Errorf("%w: unknown frame %q", ErrProtocol, f.T)
			}
		case err := <-werr:
			werr = nil
			if err != nil {
				return partial(), s.hostErr(fmt.Errorf("writing request: %w", err))
			}
		case <-ctxDone:
			ctxDone = nil
			go func() { _ = s.write([]byte("cancel\n")) }()
			t := time.NewTimer(grace)
			defer t.Stop()
			cancelHard = t.C
		case <-hard:
			res := partial()
			res.TimedOut = true
			return res, s.hostErr(fmt.Errorf("no answer %v after the timeout", grace))
		case <-cancelHard:
			return partial(), ctx.Err()
		}
	}
}

// close ends the session politely: EOF on stdin makes the bootstrap kill
// any running tree and exit. After grace the process is killed.
func (s *psSession) close(grace time.Duration) {
	// Not under wmu: a write blocked on a full pipe must not keep us from
	// closing it (os.File allows Close concurrent with Write).
	s.stdin.Close()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
		s.log.Warn("winexec: powershell did not exit after stdin closed; killing it")
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.once.Do(func() { close(s.dead) })
}

// kill ends a session that failed. Killing the Linux-side process makes WSL
// terminate powershell.exe; closing stdin first gives the bootstrap a chance
// to kill the request's tree from the Windows side.
func (s *psSession) kill(grace time.Duration) {
	s.once.Do(func() { close(s.dead) })
	s.close(grace)
}

// alive reports whether the process is still running.
func (s *psSession) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}
