package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// engine is the debugger engine as the worker sees it. Every method but
// Interrupt is called only on the worker's locked OS thread, the thread
// that opened the engine: dbgeng clients belong to the thread that
// created them, and calls from any other fail.
type engine interface {
	// Execute runs one command and returns its text output (at most the
	// configured cap; dropped counts the bytes beyond it). A failure HRESULT
	// of the engine is err, with the output printed before it.
	Execute(command string) (output string, dropped int, err error)
	// Output prints text in the debugger's window.
	Output(text string)
	// Interrupt asks the engine to stop the command running now
	// (IDebugControl::SetInterrupt, the one call dbgeng allows from any
	// thread).
	Interrupt()
	// ClearInterrupt drops an interrupt that arrived after the command
	// ended, so that it cannot stop the next one.
	ClearInterrupt()
	// Close releases every engine object the worker created.
	Close()
}

// ErrStopped is returned for calls made after the service stopped.
var ErrStopped = errors.New("the extension's service is stopped")

// evalResult is the outcome of one command.
type evalResult struct {
	Output    string
	Dropped   int   // output bytes beyond the cap
	Err       error // the engine's failure status
	TimedOut  bool  // interrupted at the timeout
	Abandoned bool  // still running after the interrupt and the grace period
}

// worker owns the engine: one goroutine, locked to its OS thread for its
// whole life, opens the engine, runs every engine call in turn, and
// releases it. HTTP handlers queue work; echo lines go to a bounded queue
// the worker drains between commands, so printing never delays a
// response.
type worker struct {
	jobs  chan func(engine)
	lines chan string
	stop  chan struct{}
	once  sync.Once // closes stop
	done  chan struct{}
	eng   engine // for Interrupt from other goroutines; set before start returns
	tid   uint64 // the worker's OS thread (0 where unknown); set before start returns

	mu      sync.Mutex // guards running and the Interrupt call
	running uint64     // id of the command in Execute, 0 when none
	nextID  uint64

	dropMu       sync.Mutex
	droppedLines int
}

// maxQueuedLines bounds the echo lines waiting for the worker; beyond it
// lines are counted and dropped, and the count is printed later.
const maxQueuedLines = 256

// startWorker starts the worker and opens the engine on its thread with
// open. It returns open's error, after the worker has ended.
func startWorker(open func() (engine, error)) (*worker, error) {
	w := &worker{
		jobs:  make(chan func(engine)),
		lines: make(chan string, maxQueuedLines),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	opened := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with the goroutine, so nothing
		// else ever runs on the thread the engine objects belong to.
		runtime.LockOSThread()
		defer close(w.done)
		w.tid = currentThreadID()
		eng, err := open()
		if err != nil {
			opened <- err
			return
		}
		w.eng = eng
		opened <- nil
		w.loop(eng)
		w.flushLines(eng)
		eng.Close()
	}()
	if err := <-opened; err != nil {
		<-w.done
		return nil, err
	}
	return w, nil
}

func (w *worker) loop(eng engine) {
	for {
		select {
		case <-w.stop:
			return
		case job := <-w.jobs:
			job(eng)
		case line := <-w.lines:
			w.print(eng, line)
		}
	}
}

// flushLines prints the lines still queued when the worker stops.
func (w *worker) flushLines(eng engine) {
	for {
		select {
		case line := <-w.lines:
			w.print(eng, line)
		default:
			return
		}
	}
}

func (w *worker) print(eng engine, line string) {
	w.dropMu.Lock()
	n := w.droppedLines
	w.droppedLines = 0
	w.dropMu.Unlock()
	if n > 0 {
		eng.Output(fmt.Sprintf("mcp: %d echo lines dropped (the debugger was busy)\n", n))
	}
	eng.Output(line)
}

// Write queues one echo line for the debugger's window; it never blocks.
func (w *worker) Write(p []byte) (int, error) {
	select {
	case w.lines <- string(p):
	default:
		w.dropMu.Lock()
		w.droppedLines++
		w.dropMu.Unlock()
	}
	return len(p), nil
}

// onWorkerThread reports whether the caller runs on the worker's thread:
// then it is inside an engine call the worker made (an extension command
// the engine runs on the caller's thread), and must not wait for the
// worker.
func (w *worker) onWorkerThread() bool {
	return w.tid != 0 && currentThreadID() == w.tid
}

// ended reports whether the worker has released the engine and ended.
func (w *worker) ended() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// close stops the worker after the job in progress and waits for it to
// release the engine, or for ctx.
func (w *worker) close(ctx context.Context) error {
	w.once.Do(func() { close(w.stop) })
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the engine worker is still busy: %w", ctx.Err())
	}
}

// eval runs command on the worker. At timeout the engine is interrupted;
// if it has not returned grace later the call gives up on it (the worker
// stays busy, and later calls wait for it or their context). ctx bounds
// the wait for the worker; cancelled during the command, it interrupts
// the command and returns at once.
func (w *worker) eval(ctx context.Context, command string, timeout, grace time.Duration) (*evalResult, error) {
	res := make(chan *evalResult, 1)
	started := make(chan uint64, 1)
	job := func(eng engine) {
		w.mu.Lock()
		w.nextID++
		id := w.nextID
		w.running = id
		w.mu.Unlock()
		started <- id
		out, dropped, err := eng.Execute(command)
		w.mu.Lock()
		w.running = 0
		w.mu.Unlock()
		// An interrupt that lost the race with the end of the command
		// must not stop the next one.
		eng.ClearInterrupt()
		res <- &evalResult{Output: out, Dropped: dropped, Err: err}
	}
	select {
	case w.jobs <- job:
	case <-w.stop:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	id := <-started
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-res:
		return r, nil
	case <-timer.C:
		w.interrupt(id)
	case <-ctx.Done():
		w.interrupt(id)
		return nil, ctx.Err()
	}
	g := time.NewTimer(grace)
	defer g.Stop()
	select {
	case r := <-res:
		r.TimedOut = true
		return r, nil
	case <-g.C:
		return &evalResult{TimedOut: true, Abandoned: true}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// interrupt interrupts command id if it is still the one running; the
// lock keeps the interrupt from landing after it ended.
func (w *worker) interrupt(id uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == id {
		w.eng.Interrupt()
	}
}
