//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

// winPath is how wine names a Linux path (drive Z: is the root).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeErr  error
)

// fakeDebugger builds the fake dbgeng.dll and the fake host into one
// directory (the host loads dbgeng.dll from its own directory) and
// returns the host's path.
func fakeDebugger(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		work, err := wintest.WorkDir()
		if err != nil {
			fakeErr = err
			return
		}
		fakeDir = filepath.Join(work, "windbgext")
		if fakeErr = os.MkdirAll(fakeDir, 0o755); fakeErr != nil {
			return
		}
		for _, c := range [][]string{
			{"-shared", "-O1", "-Wall", "-o", filepath.Join(fakeDir, "dbgeng.dll"), "testdata/fakedbgeng/fakedbgeng.c", "testdata/fakedbgeng/fakedbgeng.def"},
			{"-O1", "-Wall", "-o", filepath.Join(fakeDir, "fakehost.exe"), "testdata/fakehost/fakehost.c", "-L" + fakeDir, "-ldbgeng"},
		} {
			if b, err := exec.Command(wintest.MingwCC, c...).CombinedOutput(); err != nil {
				fakeErr = fmt.Errorf("%s %s: %v\n%s", wintest.MingwCC, strings.Join(c, " "), err, b)
				return
			}
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return filepath.Join(fakeDir, "fakehost.exe")
}

// host is the fake debugger host running under wine: lines to its stdin
// are commands, its stdout is the debugger window.
type host struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   string // the fake engine's log of executed commands

	mu      sync.Mutex
	out     strings.Builder
	changed chan struct{}
	ended   chan struct{}
}

// startHost runs the fake host with the extension's settings env.
func startHost(t *testing.T, env ...string) *host {
	t.Helper()
	w := wintest.NeedWine(t)
	exe := fakeDebugger(t)
	h := &host{t: t, log: filepath.Join(t.TempDir(), "executed.log"), changed: make(chan struct{}, 1), ended: make(chan struct{})}
	h.cmd = w.Command(context.Background(), exe)
	// LC_ALL pins wine's ANSI code page to Windows-1252 for the ansi command.
	h.cmd.Env = append(h.cmd.Env, "WINEDLLOVERRIDES=mscoree,mshtml=;dbgeng=n", "FAKEDBG_LOG="+winPath(h.log), "LC_ALL=C.UTF-8")
	h.cmd.Env = append(h.cmd.Env, env...)
	h.cmd.Stderr = os.Stderr
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(h.ended)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			h.mu.Lock()
			h.out.WriteString(strings.TrimRight(sc.Text(), "\r") + "\n")
			h.mu.Unlock()
			select {
			case h.changed <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		h.stdin.Close()
		select {
		case <-h.ended:
		case <-time.After(30 * time.Second):
			h.cmd.Process.Kill()
			<-h.ended
		}
		h.cmd.Wait()
		if t.Failed() || os.Getenv("WINDBGEXT_SHOW") != "" {
			t.Logf("host window:\n%s", h.text())
		}
	})
	return h
}

func (h *host) text() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.out.String()
}

// waitFor polls the window (an external process leaves no other way)
// until re matches after offset from, and returns the match.
func (h *host) waitFor(from int, re string) []string {
	h.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(60 * time.Second)
	for {
		text := h.text()
		if m := rx.FindStringSubmatch(text[min(from, len(text)):]); m != nil {
			return m
		}
		select {
		case <-h.changed:
		case <-h.ended:
			h.t.Fatalf("the host ended before %q appeared", re)
		case <-deadline:
			h.t.Fatalf("%q did not appear in the host window", re)
		}
	}
}

// do runs one host command and returns the window text it produced up to
// its "done" line.
func (h *host) do(line string) string {
	h.t.Helper()
	from := len(h.text())
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		h.t.Fatalf("host %s: %v", line, err)
	}
	m := h.waitFor(from, `(?s)(.*?)done `+regexp.QuoteMeta(line)+`\n`)
	return m[1]
}

// executed returns the commands the fake engine ran.
func (h *host) executed() []string {
	b, err := os.ReadFile(h.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), "\n")
}

// stats returns the fake engine's counters.
func (h *host) stats() (violations, live, unimplemented int) {
	h.t.Helper()
	out := h.do("stats")
	if _, err := fmt.Sscanf(out[strings.Index(out, "stats:"):], "stats: violations=%d live=%d unimplemented=%d", &violations, &live, &unimplemented); err != nil {
		h.t.Fatalf("stats %q: %v", out, err)
	}
	return
}

// load loads the DLL and returns the module handle and the URL served.
func (h *host) load(dll string) (module, url string) {
	h.t.Helper()
	from := len(h.text())
	out := h.do("load " + winPath(dll))
	m := regexp.MustCompile(`load: module=(\S+) hr=0x00000000`).FindStringSubmatch(out)
	if m == nil {
		h.t.Fatalf("load: %q", out)
	}
	u := h.waitFor(from, `mcp: serving (http://127\.0\.0\.1:\d+/mcp)`)
	return m[1], u[1]
}
