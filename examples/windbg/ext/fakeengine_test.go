package main

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeEngine is an engine for native tests. Like dbgeng, it belongs to the
// thread that opened it: a call from another thread (Interrupt aside) is
// counted as a violation. Execute knows k, hang (waits for an interrupt),
// big (more output than the cap) and echoes anything else back.
type fakeEngine struct {
	owner      int
	maxOutput  int
	violations atomic.Int32
	inExecute  atomic.Int32 // commands in Execute now
	overlaps   atomic.Int32 // Execute entered while another ran
	closed     atomic.Bool
	interrupt  chan struct{} // buffered 1: a pending interrupt
	// onExecute, if set, runs inside Execute on the engine's thread, as
	// the engine runs an extension's code for .unload.
	onExecute func(command string)
	// unstick ends the stuck command, which ignores interrupts.
	unstick chan struct{}

	mu       sync.Mutex
	executed []string
	window   strings.Builder
	printed  chan struct{} // signalled on each Output
}

func newFakeEngine(maxOutput int) *fakeEngine {
	return &fakeEngine{owner: int(currentThreadID()), maxOutput: maxOutput, interrupt: make(chan struct{}, 1), printed: make(chan struct{}, 1), unstick: make(chan struct{})}
}

func (f *fakeEngine) check() {
	if int(currentThreadID()) != f.owner {
		f.violations.Add(1)
	}
}

func (f *fakeEngine) Execute(command string) (string, int, error) {
	f.check()
	if f.inExecute.Add(1) > 1 {
		f.overlaps.Add(1)
	}
	defer f.inExecute.Add(-1)
	f.mu.Lock()
	f.executed = append(f.executed, command)
	f.mu.Unlock()
	if f.onExecute != nil {
		f.onExecute(command)
	}
	out := ""
	switch command {
	case "k":
		out = "00 app!main+0x42\n"
	case "hang":
		<-f.interrupt
		out = "hang: interrupted\n"
	case "stuck":
		<-f.unstick
		out = "stuck: released\n"
	case "big":
		out = strings.Repeat("x", f.maxOutput+100)
	default:
		out = "ran " + command + "\n"
	}
	if len(out) > f.maxOutput {
		return out[:f.maxOutput], len(out) - f.maxOutput, nil
	}
	return out, 0, nil
}

func (f *fakeEngine) Output(text string) {
	f.check()
	f.mu.Lock()
	f.window.WriteString(text)
	f.mu.Unlock()
	select {
	case f.printed <- struct{}{}:
	default:
	}
}

// Interrupt may be called from any thread, as SetInterrupt.
func (f *fakeEngine) Interrupt() {
	select {
	case f.interrupt <- struct{}{}:
	default:
	}
}

func (f *fakeEngine) ClearInterrupt() {
	f.check()
	select {
	case <-f.interrupt:
	default:
	}
}

func (f *fakeEngine) Close() {
	f.check()
	f.closed.Store(true)
}

func (f *fakeEngine) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.executed...)
}

func (f *fakeEngine) windowText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.window.String()
}

// opener returns an open function for startWorker and a channel that
// receives the engine it made, on the worker's thread.
func opener(t *testing.T, maxOutput int) (func() (engine, error), <-chan *fakeEngine) {
	ch := make(chan *fakeEngine, 1)
	return func() (engine, error) {
		f := newFakeEngine(maxOutput)
		ch <- f
		return f, nil
	}, ch
}
