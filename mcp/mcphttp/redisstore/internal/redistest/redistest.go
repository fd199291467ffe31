// Package redistest runs a redis-server of its own for a test: on a unix
// socket in the test's temporary directory, no TCP port, persisting to
// an append-only file there so that a restart keeps what was written.
// It is imported only by _test.go files.
package redistest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
)

// Server is a redis-server started by a test.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	// Socket is the unix socket it listens on.
	Socket string
}

// Start starts redis-server (a missing one skips the test, or fails it
// with WINBRIDGE_REQUIRE_PEERS=1) and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: peertest.LookPath(t, "redis-server"), dir: t.TempDir()}
	// A short path: unix socket paths are limited to about 100 bytes.
	if len(filepath.Join(s.dir, "r.sock")) > 100 {
		d, err := os.MkdirTemp("", "rt")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		s.dir = d
	}
	s.Socket = filepath.Join(s.dir, "r.sock")
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's address for redis clients.
func (s *Server) URL() string { return "unix://" + s.Socket }

func (s *Server) start() {
	s.t.Helper()
	_ = os.Remove(s.Socket)
	s.cmd = exec.Command(s.bin,
		"--port", "0", "--unixsocket", s.Socket, "--unixsocketperm", "700",
		"--dir", s.dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--daemonize", "no", "--loglevel", "warning")
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	s.done = make(chan struct{})
	var log strings.Builder
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
		_ = s.cmd.Wait()
	}()
	// redis-server says nothing on a socket until it listens: poll for it
	// (an external process leaves no other way), with a deadline.
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("unix", s.Socket, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-s.done:
			s.t.Fatalf("redis-server exited: %s", log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server did not listen on %s within 20s", s.Socket)
		}
	}
}

// Stop kills the server and waits for it; stopping twice is no error.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Restart stops the server and starts it again on the same socket and
// data: what was written before is there again.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}
