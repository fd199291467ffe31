//go:build unix

package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const stdioChildEnv = "WINBRIDGE_TRANSPORT_STDIO_CHILD"

// Exit statuses of the child, besides 0.
const (
	childStdioFailed    = 10
	childNotDiverted    = 11
	childNotRestored    = 12
	childProtocolWrote  = 13
	childNotPolled      = 14
	childStillNonblock  = 15
	childStderrNonblock = 16
)

// nonblocking reports whether descriptor 0's open file is in non-blocking
// mode.
func stdinNonblocking() bool {
	flags, err := unix.FcntlInt(0, unix.F_GETFL, 0)
	return err == nil && flags&unix.O_NONBLOCK != 0
}

// fileID identifies the open file behind a descriptor.
func fileID(fd int) [2]uint64 {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return [2]uint64{}
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}
}

// TestStdioChild is the server TestStdio starts: it serves on its standard
// streams until standard input ends, printing stray output from its
// handler, and exits.
func TestStdioChild(t *testing.T) {
	if os.Getenv(stdioChildEnv) != "1" {
		t.Skip("the child of TestStdio")
	}
	stdout, stderr := fileID(1), fileID(2)
	s, err := Stdio(&StreamOptions{Logger: quiet})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Stdio:", err)
		os.Exit(childStdioFailed)
	}
	if fileID(1) != stderr || fileID(1) == stdout {
		os.Exit(childNotDiverted)
	}
	// Standard input is a pipe: it is read through the poller.
	if !stdinNonblocking() {
		os.Exit(childNotPolled)
	}
	conn := NewConn(s, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		fmt.Println("stray from fmt.Println")
		_, _ = syscall.Write(1, []byte("stray on descriptor 1\n"))
		if r.IsNotification() {
			return
		}
		if r.Method == "shell" {
			// A child process inherits descriptor 1: stderr too.
			cmd := exec.Command("sh", "-c", "echo stray from a child process")
			cmd.Stdout = os.Stdout
			_ = cmd.Run()
		}
		_ = c.Reply(ctx, r, map[string]any{"method": r.Method, "params": r.Params})
	}), &ConnOptions{Logger: quiet})
	<-conn.Done()
	// The read loop closes the stream as Done fires; Close waits for it.
	_ = s.Close()
	if fileID(1) != stdout {
		os.Exit(childNotRestored)
	}
	// The pipe is left as the stream found it, for whoever reads it next.
	if stdinNonblocking() {
		os.Exit(childStillNonblock)
	}
	if err := s.WriteObject(map[string]any{"jsonrpc": "2.0", "method": "late"}); err == nil {
		os.Exit(childProtocolWrote)
	}
	os.Exit(0)
}

func TestStdio(t *testing.T) {
	if os.Getenv(stdioChildEnv) != "" {
		t.Skip("in the child")
	}
	checkLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStdioChild$", "-test.count=1", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	var lines []string
	exchange := func(req string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, req+"\n"); err != nil {
			t.Fatalf("writing to the child: %v (stderr: %s)", err, stderr.String())
		}
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading from the child: %v (stderr: %s)", err, stderr.String())
		}
		lines = append(lines, line)
		return strings.TrimSuffix(line, "\n")
	}
	if got, want := exchange(`{"jsonrpc":"2.0","method":"note"}`+"\n"+`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1}}`),
		`{"jsonrpc":"2.0","id":1,"result":{"method":"ping","params":{"a":1}}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := exchange(`{"jsonrpc":"2.0","id":"s\u00e9","method":"shell"}`),
		`{"jsonrpc":"2.0","id":"s\u00e9","result":{"method":"shell","params":null}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := exchange(`not json`), parseJSON; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// End of input ends the server, cleanly.
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) > 0 {
		lines = append(lines, string(rest))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v; stderr:\n%s", err, stderr.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) || !strings.HasSuffix(l, "\n") || strings.Count(l, "\n") != 1 {
			t.Errorf("stdout holds a line that is not one protocol message: %q", l)
		}
	}
	// The handler ran three times (a notification and two requests), and
	// started one child process.
	for stray, n := range map[string]int{"stray from fmt.Println\n": 3, "stray on descriptor 1\n": 3, "stray from a child process\n": 1} {
		if got := strings.Count(stderr.String(), stray); got != n {
			t.Errorf("stderr has %q %d times, want %d; stderr:\n%s", stray, got, n, stderr.String())
		}
	}
}

// TestStdioSharedPipeChild checks, in a child whose stdout and stderr are
// one pipe, that Stdio leaves that pipe blocking: stderr's writers do not
// expect EAGAIN.
func TestStdioSharedPipeChild(t *testing.T) {
	if os.Getenv(stdioChildEnv) != "shared" {
		t.Skip("the child of TestStdioSharedPipe")
	}
	s, err := Stdio(&StreamOptions{Logger: quiet})
	if err != nil {
		os.Exit(childStdioFailed)
	}
	flags, err := unix.FcntlInt(2, unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK != 0 {
		os.Exit(childStderrNonblock)
	}
	_ = s.Close()
	os.Exit(0)
}

func TestStdioSharedPipe(t *testing.T) {
	if os.Getenv(stdioChildEnv) != "" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdioSharedPipeChild$", "-test.count=1", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=shared")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe for both
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v; output:\n%s", err, out.String())
	}
}

// TestStdioNonblockClearedChild reads standard input after another holder
// of the same pipe (here a duplicate descriptor, as a child process that
// inherited standard input would hold) has made it blocking again. The
// read must then block as an ordinary system call: the garbage collector,
// which stops every running goroutine, still completes.
func TestStdioNonblockClearedChild(t *testing.T) {
	if os.Getenv(stdioChildEnv) != "nonblock" {
		t.Skip("the child of TestStdioNonblockCleared")
	}
	s, err := Stdio(&StreamOptions{Logger: quiet})
	if err != nil {
		os.Exit(childStdioFailed)
	}
	// The flag belongs to the open pipe, shared by every descriptor on it.
	cleared := make(chan error, 1)
	go func() {
		fd, err := unix.Dup(0)
		if err == nil {
			err = unix.SetNonblock(fd, false)
			unix.Close(fd)
		}
		cleared <- err
	}()
	if err := <-cleared; err != nil || stdinNonblocking() {
		os.Exit(childStillNonblock)
	}
	reading := make(chan struct{})
	go func() {
		close(reading)
		_, _ = s.f.ReadFrame() // the parent never writes: this blocks
	}()
	<-reading
	// Whether the reader has entered read(2) yet cannot be observed, so the
	// collector runs again and again for a while: a reader that holds its
	// thread as a running goroutine freezes the first collection after it
	// blocks, and with it the whole process (the parent then kills it).
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		runtime.GC()
	}
	os.Exit(0)
}

func TestStdioNonblockCleared(t *testing.T) {
	if os.Getenv(stdioChildEnv) != "" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdioNonblockClearedChild$", "-test.count=1", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=nonblock")
	stdin, err := cmd.StdinPipe() // a pipe, kept open and silent
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("child: %v; output:\n%s", err, out.String())
		}
	case <-time.After(waitLimit):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("the child froze: runtime.GC did not return within %v while a read of standard input was blocked", waitLimit)
	}
}
