package main

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every engine call runs on the thread that opened the engine, one
// command at a time, even when the calls come from many goroutines at
// once, and the engine is closed on that thread when the worker stops.
func TestWorkerThreadAffinity(t *testing.T) {
	open, engines := opener(t, 1<<10)
	w, err := startWorker(open)
	if err != nil {
		t.Fatal(err)
	}
	f := <-engines
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			// Move between threads on purpose.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			res, err := w.eval(context.Background(), "k", time.Minute, time.Second)
			if err != nil || !strings.Contains(res.Output, "app!main") {
				t.Errorf("eval: %+v %v", res, err)
			}
			w.Write([]byte("echo line\n"))
		})
	}
	wg.Wait()
	if err := w.close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.violations.Load(); n != 0 {
		t.Errorf("%d engine calls from a thread other than the owner's", n)
	}
	if n := f.overlaps.Load(); n != 0 {
		t.Errorf("%d commands started while another ran", n)
	}
	if !f.closed.Load() {
		t.Error("the engine was not closed")
	}
	if got := strings.Count(f.windowText(), "echo line\n"); got != 8 {
		t.Errorf("%d echo lines printed, want 8", got)
	}
	if _, err := w.eval(context.Background(), "k", time.Minute, time.Second); !errors.Is(err, ErrStopped) {
		t.Errorf("eval after close: %v, want ErrStopped", err)
	}
}

// The fake engine's own check works: a call from another thread counts.
// Two goroutines locked to their threads at the same time are on two
// threads.
func TestFakeEngineCatchesWrongThread(t *testing.T) {
	if int(currentThreadID()) == 0 {
		t.Skip("no thread ids on this system")
	}
	made := make(chan *fakeEngine)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		made <- newFakeEngine(10)
		<-release // hold the owner's thread while the other one calls
	}()
	f := <-made
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f.Output("from the wrong thread")
		close(done)
	}()
	<-done
	close(release)
	if f.violations.Load() != 1 {
		t.Errorf("violations = %d, want 1", f.violations.Load())
	}
}

// A command past the timeout is interrupted, its output so far returned,
// and the interrupt does not leak into the next command.
func TestWorkerTimeoutInterrupts(t *testing.T) {
	open, engines := opener(t, 1<<10)
	w, err := startWorker(open)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close(context.Background())
	f := <-engines
	res, err := w.eval(context.Background(), "hang", 50*time.Millisecond, 10*time.Second)
	if err != nil || !res.TimedOut || res.Abandoned || !strings.Contains(res.Output, "interrupted") {
		t.Fatalf("hang: %+v %v", res, err)
	}
	// A stale interrupt would make a second hang return at once.
	f.Interrupt() // lands while nothing runs, as after a lost race
	if _, err := w.eval(context.Background(), "k", time.Minute, time.Second); err != nil {
		t.Fatal(err)
	}
	res, err = w.eval(context.Background(), "hang", 50*time.Millisecond, 10*time.Second)
	if err != nil || !res.TimedOut {
		t.Fatalf("second hang: %+v %v", res, err)
	}
}

// Output beyond the cap is counted, not returned.
func TestWorkerOutputCap(t *testing.T) {
	open, _ := opener(t, 100)
	w, err := startWorker(open)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close(context.Background())
	res, err := w.eval(context.Background(), "big", time.Minute, time.Second)
	if err != nil || len(res.Output) != 100 || res.Dropped != 100 {
		t.Fatalf("big: %d bytes, %d dropped, %v", len(res.Output), res.Dropped, err)
	}
}

// Cancelling the caller returns at once and interrupts the command.
func TestWorkerCancelInterrupts(t *testing.T) {
	open, _ := opener(t, 1<<10)
	w, err := startWorker(open)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := w.eval(ctx, "hang", time.Hour, time.Hour)
		errc <- err
	}()
	// The hang is running once the worker holds its id.
	for {
		w.mu.Lock()
		running := w.running
		w.mu.Unlock()
		if running != 0 {
			break
		}
		runtime.Gosched()
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("eval: %v", err)
	}
	// The worker is free again: the interrupt ended the hang.
	if _, err := w.eval(context.Background(), "k", time.Minute, time.Second); err != nil {
		t.Fatal(err)
	}
}

// Echo lines never block, even while the worker is busy; past the bound
// they are counted and the count printed.
func TestWorkerEchoNeverBlocks(t *testing.T) {
	open, engines := opener(t, 1<<10)
	w, err := startWorker(open)
	if err != nil {
		t.Fatal(err)
	}
	f := <-engines
	res := make(chan error, 1)
	go func() {
		_, err := w.eval(context.Background(), "hang", time.Hour, time.Hour)
		res <- err
	}()
	for {
		w.mu.Lock()
		running := w.running
		w.mu.Unlock()
		if running != 0 {
			break
		}
		runtime.Gosched()
	}
	for range maxQueuedLines + 10 {
		w.Write([]byte("line\n"))
	}
	f.Interrupt()
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if err := w.close(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := f.windowText()
	if !strings.Contains(text, "10 echo lines dropped") || strings.Count(text, "line\n") < maxQueuedLines {
		t.Errorf("window: %d lines, drop note %v", strings.Count(text, "line\n"), strings.Contains(text, "dropped"))
	}
}

// An engine that cannot be opened leaves nothing running.
func TestWorkerOpenFails(t *testing.T) {
	boom := errors.New("no engine")
	if _, err := startWorker(func() (engine, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("startWorker: %v", err)
	}
}

// A command that ignores the interrupt is given up on after the grace
// period; later calls wait for the worker within their own context, and
// run once the command has returned.
func TestWorkerAbandonsStuckCommand(t *testing.T) {
	open, engines := opener(t, 1<<10)
	w, err := startWorker(open)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close(context.Background())
	f := <-engines
	res, err := w.eval(context.Background(), "stuck", 10*time.Millisecond, 10*time.Millisecond)
	if err != nil || !res.TimedOut || !res.Abandoned {
		t.Fatalf("stuck: %+v %v", res, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := w.eval(ctx, "k", time.Minute, time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("k behind the stuck command: %v", err)
	}
	close(f.unstick)
	if res, err := w.eval(context.Background(), "k", time.Minute, time.Second); err != nil || res.Output != "00 app!main+0x42\n" {
		t.Fatalf("k after the stuck command returned: %+v %v", res, err)
	}
}
