package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

// fakeExe is the test double of cdb.exe (testdata/fakecdb), built natively
// by TestMain into fakeDir, whose unique name finds its processes.
var fakeExe, fakeDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "windbg-fakecdb-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fakeDir, fakeExe = dir, filepath.Join(dir, "fakecdb")
	if out, err := exec.Command("go", "build", "-o", fakeExe, "./testdata/fakecdb").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: building the fake cdb: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	wintest.Cleanup()
	if code == 0 {
		if pids := wintest.Processes(filepath.Base(fakeDir)); len(pids) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: fake cdb processes left alive: %v\n", pids)
			code = 1
		}
	}
	os.RemoveAll(fakeDir)
	os.Exit(code)
}

// fake is one fake cdb configuration and its event log.
type fake struct {
	cfg Config
	log string
}

// newFake returns a Config that starts the fake cdb on a dump through an
// "env" launcher, which sets the fake's log file and the given variables
// (FAKECDB_ECHO=1, FAKECDB_IGNORE_QUIT=1).
func newFake(t *testing.T, env ...string) *fake {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "fakecdb.log")
	return &fake{
		log: logPath,
		cfg: Config{
			CDB:          fakeExe,
			Launcher:     append([]string{"env", "FAKECDB_LOG=" + logPath}, env...),
			Args:         []string{"-y", `srv*C:\symbols`},
			Dump:         `C:\dumps\app.dmp`,
			Timeout:      10 * time.Second,
			StartTimeout: 30 * time.Second,
			Grace:        2 * time.Second,
			MaxOutput:    1 << 20,
		},
	}
}

// events returns the fake's log: "start ARGS", "recv LINE" (unquoted),
// "interrupt", "exit REASON".
func (f *fake) events(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if err != nil {
		t.Fatalf("reading the fake's log: %v", err)
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		if q, ok := strings.CutPrefix(line, "recv "); ok {
			s, err := strconv.Unquote(q)
			if err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			line = "recv " + s
		}
		out = append(out, line)
	}
	return out
}

// commands returns the command lines the fake received, marker commands
// left out.
func (f *fake) commands(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, e := range f.events(t) {
		if c, ok := strings.CutPrefix(e, "recv "); ok && !strings.HasPrefix(c, ".echo WINDBG_MCP_DONE_") {
			out = append(out, c)
		}
	}
	return out
}

// count returns how many events start with prefix.
func count(events []string, prefix string) int {
	n := 0
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

// syncBuffer is an io.Writer for logs written by server goroutines; tests
// wait for text to appear without sleeping.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{})} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.changed)
	b.changed = make(chan struct{})
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLine waits until a line satisfies ok and returns it.
func (b *syncBuffer) waitLine(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		text, changed := b.buf.String(), b.changed
		b.mu.Unlock()
		for line := range strings.Lines(text) {
			if ok(line) {
				return line
			}
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no line with %s in:\n%s", what, text)
		}
	}
}

// harness is a running server on a loopback port.
type harness struct {
	url  string
	echo *syncBuffer // the request echo
	log  *syncBuffer // the server's log
	sess *Session
	stop func() error // shuts the server down (once) and returns serve's error
}

// startServer opens the session on cfg and serves it on 127.0.0.1:0, as
// run does; the server is stopped when the test ends.
func startServer(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{echo: newSyncBuffer(), log: newSyncBuffer()}
	log := slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := &settings{cfg: cfg, httpAddr: "127.0.0.1:0", echoMaxText: defaultEchoMaxText}
	h.sess = NewSession(cfg, log)
	ctx, cancel := context.WithCancel(context.Background())
	if err := h.sess.Open(ctx); err != nil {
		cancel()
		t.Fatalf("opening the session: %v", err)
	}
	ln, err := net.Listen("tcp", s.httpAddr)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	h.url = "http://" + ln.Addr().String() + "/mcp"
	done := make(chan error, 1)
	go func() { done <- newServer(s, h.sess, log, h.echo).serve(ctx, ln, log) }()
	h.stop = sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { _ = h.stop() })
	return h
}

// runMain runs the command's run function with args and env in the
// background; it returns the URL it serves, its stderr, and a function
// that stops it and returns its exit code.
func runMain(t *testing.T, args []string, env map[string]string) (url string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	stderr = newSyncBuffer()
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() { code <- run(ctx, args, func(k string) string { return env[k] }, stderr) }()
	stop = sync.OnceValue(func() int {
		cancel()
		return <-code
	})
	t.Cleanup(func() { stop() })
	line := stderr.waitLine(t, "url=", func(l string) bool {
		return strings.Contains(l, "url=") || strings.HasPrefix(l, "windbg: ")
	})
	_, u, ok := strings.Cut(line, "url=")
	if !ok {
		t.Fatalf("the server did not start: %s", line)
	}
	return strings.Fields(u)[0], stderr, stop
}
