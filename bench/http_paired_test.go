package bench

import (
	"context"
	"fmt"
	"runtime/pprof"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Paired HTTP benchmarks: the ratios measured inside one benchmark,
// the two sides interleaved in short slices.
//
// BenchmarkHTTPSequential and BenchmarkHTTPConcurrent64 run each library
// for about two seconds, one after another. On a shared two-core machine
// the speed of the machine itself drifts over seconds, so the ratio of two
// of those rows moves with whatever else ran meanwhile (1.25 to 1.93 for
// the same code within one series). Here both sessions live side by side
// and take turns, a few tens of milliseconds each, in the order A B B A:
// drift slower than a slice falls on both sides alike and cancels out of
// the ratio. What does not cancel: garbage one side leaves may be
// collected in the other side's slice (the collector runs when the heap
// grows, so each side mostly pays for its own), and the two servers'
// connections share the process.

// pairedSliceCalls is how many calls one caller makes per slice: about
// 20 ms sequentially on this machine.
const pairedSliceCalls = 400

// pairedConcurrentCalls is how many calls each of the 64 callers makes per
// slice: about 30 ms on this machine.
const pairedConcurrentCalls = 16

var httpPairs = []struct{ name, a, b string }{
	// The control: two sessions of the same library, whose ratio shows
	// what the method itself adds (it should be 1).
	{"control-winbridge-vs-winbridge", "winbridge", "winbridge"},
	{"winbridge-vs-mcpgo", "winbridge", "mcpgo"},
	{"stateless-vs-legacy", "winbridge-2026-07-28", "winbridge"},
	{"stateless-vs-mcpgo-stateless", "winbridge-2026-07-28", "mcpgo-stateless"},
	// The wire floor of stateless-vs-legacy: net/http alone carrying each
	// era's bytes (http_wirefloor_test.go).
	{"wirefloor-stateless-vs-legacy", "wire-2026-07-28", "wire-2025-11-25"},
}

// BenchmarkHTTPPaired: for each pair, one op is one slice of calls on each
// side. It reports ratio (calls/s of a over calls/s of b), each side's
// calls/s, and each side's CPU per call (the whole process's, within its
// own slices).
func BenchmarkHTTPPaired(b *testing.B) {
	for _, callers := range []int{1, 64} {
		mode := "sequential"
		if callers > 1 {
			mode = "concurrent64"
		}
		for _, p := range httpPairs {
			b.Run(mode+"/"+p.name, func(b *testing.B) {
				// Each side's goroutines (its server's connections, its
				// client's, its callers) carry the label side=a:name or
				// b:name, so that a CPU profile of this benchmark splits
				// by side: go tool pprof -tags, or -tagfocus.
				ra := startPairedSide(b, "a:"+p.a, callers)
				defer ra.s.close()
				defer ra.stop()
				rb := startPairedSide(b, "b:"+p.b, callers)
				defer rb.s.close()
				defer rb.stop()
				// Warm both: connections open, encoders built.
				if err := firstErr(ra.slice(), rb.slice()); err != nil {
					b.Fatal(err)
				}
				var ta, tb pairedTotals
				b.ResetTimer()
				for i := range b.N {
					first, second := ra, rb
					ft, st := &ta, &tb
					if i%2 == 1 {
						first, second, ft, st = rb, ra, &tb, &ta
					}
					if err := firstErr(ft.add(first), st.add(second)); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				ta.report(b, "a")
				tb.report(b, "b")
				if ta.wall > 0 && tb.wall > 0 {
					b.ReportMetric(ta.rate()/tb.rate(), "ratio")
				}
			})
		}
	}
}

// startPairedSide starts the implementation named by side (after its
// "a:" or "b:") and its runner with pprof label side, which every
// goroutine they start inherits.
func startPairedSide(b *testing.B, side string, callers int) *pairedRunner {
	var r *pairedRunner
	pprof.Do(context.Background(), pprof.Labels("side", side), func(ctx context.Context) {
		r = newPairedRunner(mustStart(b, httpImpl(b, side[len("a:"):])), callers)
		r.labels = ctx
	})
	return r
}

// httpImpl is the HTTP implementation named name.
func httpImpl(b *testing.B, name string) impl {
	for _, im := range append(httpImpls, wireFloorImpls...) {
		if im.name == name {
			return im
		}
	}
	b.Fatalf("no HTTP implementation %q", name)
	return impl{}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pairedTotals adds up one side's slices.
type pairedTotals struct {
	calls int
	wall  time.Duration
	cpu   time.Duration
}

// add runs one slice of r and counts its calls, wall time and the
// process's CPU time.
func (t *pairedTotals) add(r *pairedRunner) error {
	cpu := rusageCPU()
	start := time.Now()
	err := r.slice()
	t.wall += time.Since(start)
	t.cpu += rusageCPU() - cpu
	t.calls += r.perSlice()
	return err
}

func (t *pairedTotals) rate() float64 { return float64(t.calls) / t.wall.Seconds() }

func (t *pairedTotals) report(b *testing.B, side string) {
	if t.wall <= 0 || t.calls == 0 {
		return
	}
	b.ReportMetric(t.rate(), side+"-calls/s")
	b.ReportMetric(float64(t.cpu.Microseconds())/float64(t.calls), side+"-cpu-µs/call")
}

// rusageCPU is this process's user and system time, in microseconds'
// resolution (/proc's clock ticks, 10 ms, are as long as a slice).
func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pairedRunner makes slices of echo calls on one session: from one
// caller, or from callers goroutines that wait between slices, so that no
// goroutine is started while a slice is timed.
type pairedRunner struct {
	s       session
	labels  context.Context // carries the side's pprof labels
	callers int
	start   chan struct{}
	done    chan error
	wg      sync.WaitGroup
}

func newPairedRunner(s session, callers int) *pairedRunner {
	r := &pairedRunner{s: s, callers: callers}
	if callers == 1 {
		return r
	}
	r.start = make(chan struct{})
	r.done = make(chan error, callers)
	for range callers {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for range r.start {
				r.done <- r.calls(pairedConcurrentCalls)
			}
		}()
	}
	return r
}

func (r *pairedRunner) perSlice() int {
	if r.callers == 1 {
		return pairedSliceCalls
	}
	return r.callers * pairedConcurrentCalls
}

// slice makes one slice of calls and returns the first error.
func (r *pairedRunner) slice() error {
	if r.callers == 1 {
		if r.labels == nil {
			return r.calls(pairedSliceCalls)
		}
		// The calls run on the benchmark's goroutine: label it for the
		// slice.
		var err error
		pprof.Do(r.labels, pprof.Labels(), func(context.Context) { err = r.calls(pairedSliceCalls) })
		return err
	}
	for range r.callers {
		r.start <- struct{}{}
	}
	var first error
	for range r.callers {
		if err := <-r.done; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (r *pairedRunner) calls(n int) error {
	ctx := context.Background()
	for range n {
		got, err := r.s.echo(ctx, shortText)
		if err != nil {
			return err
		}
		if got != shortText {
			return fmt.Errorf("echo returned %q", got)
		}
	}
	return nil
}

// stop ends the callers' goroutines.
func (r *pairedRunner) stop() {
	if r.start != nil {
		close(r.start)
		r.wg.Wait()
	}
}
