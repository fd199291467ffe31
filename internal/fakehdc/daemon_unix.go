//go:build unix

package fakehdc

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Daemon plays the devices of a state directory: for each connection it
// reads one Request, runs /bin/sh -c with the command in the target's
// device directory, streams stdout and stderr merged and closes the
// connection when the command ends, without reporting its status (hdcd
// does not either). When the client disconnects first, the command's
// process group is killed.
type Daemon struct {
	ln    net.Listener
	state string

	mu       sync.Mutex
	received []Request
	running  map[*exec.Cmd]struct{}
	closed   bool
	idle     chan struct{} // closed when running becomes empty
	wg       sync.WaitGroup
}

// StartDaemon listens on 127.0.0.1 for the devices of state.
func StartDaemon(state string) (*Daemon, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &Daemon{ln: ln, state: state, running: map[*exec.Cmd]struct{}{}, idle: make(chan struct{})}
	close(d.idle)
	d.wg.Add(1)
	go d.serve()
	return d, nil
}

// Addr is the daemon's host:port, for Config.Daemon.
func (d *Daemon) Addr() string { return d.ln.Addr().String() }

// Received returns the requests received so far, in order.
func (d *Daemon) Received() []Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Request(nil), d.received...)
}

// WaitIdle waits until no device command runs (every one ended or was
// killed), or ctx ends.
func (d *Daemon) WaitIdle(ctx context.Context) error {
	d.mu.Lock()
	ch := d.idle
	d.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops listening, kills running commands and waits for every
// connection to end.
func (d *Daemon) Close() error {
	err := d.ln.Close()
	d.mu.Lock()
	d.closed = true
	for c := range d.running {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
	d.mu.Unlock()
	d.wg.Wait()
	return err
}

func (d *Daemon) serve() {
	defer d.wg.Done()
	for {
		conn, err := d.ln.Accept()
		if err != nil {
			return
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer conn.Close()
			d.handle(conn)
		}()
	}
}

func (d *Daemon) handle(conn net.Conn) {
	br := bufio.NewReader(conn)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		_, _ = conn.Write([]byte("[Fail]fake daemon: bad request\n"))
		return
	}
	root := DeviceDir(d.state, req.Key)
	cmd := exec.Command("/bin/sh", "-c", req.Cmd)
	cmd.Dir = root
	cmd.Env = []string{
		"PATH=" + filepath.Join(root, "bin") + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + root,
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"LANG=C.UTF-8",
	}
	cmd.Stdout, cmd.Stderr = conn, conn
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second

	d.mu.Lock()
	d.received = append(d.received, req)
	if d.closed {
		d.mu.Unlock()
		return
	}
	if err := cmd.Start(); err != nil {
		d.mu.Unlock()
		_, _ = conn.Write([]byte("[Fail]fake daemon: " + err.Error() + "\n"))
		return
	}
	if len(d.running) == 0 {
		d.idle = make(chan struct{})
	}
	d.running[cmd] = struct{}{}
	d.mu.Unlock()

	// The client never writes again: a read returns when it goes away
	// (or when we close the connection after the command ended).
	var once sync.Mutex
	finished := false
	watch := make(chan struct{})
	go func() {
		defer close(watch)
		var b [1]byte
		for {
			if _, err := br.Read(b[:]); err != nil {
				break
			}
		}
		once.Lock()
		if !finished {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		once.Unlock()
	}()
	_ = cmd.Wait()
	once.Lock()
	finished = true
	once.Unlock()
	d.mu.Lock()
	delete(d.running, cmd)
	if len(d.running) == 0 {
		close(d.idle)
	}
	d.mu.Unlock()
	_ = conn.Close()
	<-watch
}
