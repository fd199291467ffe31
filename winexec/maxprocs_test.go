//go:build unix

package winexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

// blockingChild is a real child process of the local backend that runs
// until the test releases it: it reads a named pipe the test holds open.
type blockingChild struct {
	fifo string
	w    *os.File
	done chan error
	res  *Result
}

// startBlocking runs the helper's fifo command through e in a goroutine,
// its pipe named name in dir (whose path then finds the test's children
// among the processes).
func startBlocking(t *testing.T, e *Executor, ctx context.Context, timeout time.Duration, dir, name string) *blockingChild {
	t.Helper()
	c := &blockingChild{fifo: filepath.Join(dir, name), done: make(chan error, 1)}
	if err := syscall.Mkfifo(c.fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		res, err := e.Run(ctx, Request{Exe: nativeHelper(t), Args: []string{"fifo", c.fifo}, Timeout: timeout})
		c.res = res
		c.done <- err
	}()
	return c
}

// running waits until the child has opened its pipe: opening the writing
// end blocks until then.
func (c *blockingChild) running(t *testing.T) {
	t.Helper()
	w, err := os.OpenFile(c.fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.w = w
}

func (c *blockingChild) release() {
	if c.w != nil {
		c.w.Close()
	}
}

// TestExecutorBoundsProcesses: the local and direct backends start a
// process per call, and nothing but the MCP handler concurrency (64 per
// session, times sessions) bounded how many ran at once, so a model could
// fork as many programs as it liked. With MaxProcesses 2, a third call
// waits for a slot within its own timeout, runs when one frees, and fails
// with ErrTooManyProcesses (nothing started) when none does in time; its
// cancellation ends the wait at once.
func TestExecutorBoundsProcesses(t *testing.T) {
	helper := nativeHelper(t)
	dir := t.TempDir()
	e, err := New(Config{Backend: BackendLocal, MaxProcesses: 2, Policy: Policy{AllowExe: []string{helper}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	a := startBlocking(t, e, ctx, time.Minute, dir, "a")
	b := startBlocking(t, e, ctx, time.Minute, dir, "b")
	a.running(t)
	b.running(t)
	defer a.release()
	defer b.release()

	// A third call waits; within a short timeout no slot frees.
	res, err := e.Run(ctx, Request{Exe: helper, Args: []string{"argv", "x"}, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrTooManyProcesses) || res != nil {
		t.Fatalf("third call: res %+v err %v, want ErrTooManyProcesses", res, err)
	}

	// Cancellation ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		_, err := e.Run(cctx, Request{Exe: helper, Args: []string{"argv", "x"}, Timeout: time.Hour})
		waited <- err
	}()
	cancel()
	if err := <-waited; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want context.Canceled", err)
	}

	// A waiting call runs once a slot frees.
	c := startBlocking(t, e, ctx, time.Minute, dir, "c")
	a.release()
	if err := <-a.done; err != nil || string(a.res.Stdout.Bytes()) != "released\n" {
		t.Fatalf("first call: %v %+v", err, a.res)
	}
	c.running(t)
	c.release()
	if err := <-c.done; err != nil {
		t.Fatalf("waiting call: %v", err)
	}
	b.release()
	if err := <-b.done; err != nil {
		t.Fatalf("second call: %v", err)
	}

	// Every slot is back.
	var ds []*blockingChild
	for i := range 2 {
		d := startBlocking(t, e, ctx, time.Minute, dir, "d"+strconv.Itoa(i))
		d.running(t)
		ds = append(ds, d)
	}
	for _, d := range ds {
		d.release()
		if err := <-d.done; err != nil {
			t.Errorf("call after the others: %v", err)
		}
	}

	// No child is left (TestMain checks goroutines and the helper's
	// processes after the run as well).
	if pids := wintest.Processes(dir); len(pids) > 0 {
		t.Errorf("children still running: %v", pids)
	}
}
