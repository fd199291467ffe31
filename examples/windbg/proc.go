package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// proc is one running cdb: its stdin, its output (stdout and stderr on one
// pipe, so their order is kept) as a stream of chunks, and its exit.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *os.File      // read end of the output pipe
	chunks chan []byte   // output as read; closed at end of file
	stop   chan struct{} // closed by release: the reader gives up
	exited chan struct{} // closed once the process has been waited for
	err    error         // the Wait error, valid after exited

	// pending is output after the last newline, kept for the next read. It
	// is used only by the session's turn holder.
	pending []byte

	releaseOnce sync.Once
}

// startProc starts argv in a process group of its own (the tree a kill
// reaches) with its stdin on a pipe and its stdout and stderr on another.
func startProc(argv []string) (*proc, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command line")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = childEnv(os.Environ())
	cmd.Stdout, cmd.Stderr = w, w
	prepareTree(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("input pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	w.Close() // the child holds the write end now
	p := &proc{
		cmd: cmd, stdin: stdin, out: r,
		chunks: make(chan []byte, 16),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go p.read()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// childEnv is env without the server's own settings (WINDBG_*), which
// cdb does not read: WINDBG_HTTP_TOKEN opens the server to whoever holds
// it and WINDBG_REMOTE may carry a password, and cdb passes its
// environment on to every program it starts (a SrcSrv fetch command, an
// extension's helper, .create where allowed); under wine a Windows process
// sees the whole Unix environment. The rest (PATH, _NT_SYMBOL_PATH, wine's
// variables) is cdb's.
func childEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		// Any case: Windows' variable names are case-insensitive.
		if len(kv) < len("WINDBG_") || !strings.EqualFold(kv[:len("WINDBG_")], "WINDBG_") {
			out = append(out, kv)
		}
	}
	return out
}

// read forwards the output until end of file or release.
func (p *proc) read() {
	defer close(p.chunks)
	for {
		buf := make([]byte, 32<<10)
		n, err := p.out.Read(buf)
		if n > 0 {
			select {
			case p.chunks <- buf[:n]:
			case <-p.stop:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes one line to cdb's input.
func (p *proc) send(line string) error {
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return fmt.Errorf("writing to cdb: %w", err)
	}
	return nil
}

// dead reports whether the process has exited.
func (p *proc) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// kill kills the process tree and waits for the process to be reaped.
func (p *proc) kill() {
	_ = killTree(p.cmd)
	<-p.exited
}

// release frees the pipes once the process is gone (or abandoned): a
// grandchild that inherited the output pipe must not keep the reader
// blocked.
func (p *proc) release() {
	p.releaseOnce.Do(func() {
		close(p.stop)
		p.out.Close()
		p.stdin.Close()
	})
}

// pid is the process id, for logs and tests.
func (p *proc) pid() int { return p.cmd.Process.Pid }
