package winexec

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winbridge/winbridge/internal/wintest"
)

// A harness runs the shared backend contract against one backend and one
// test program.
type harness struct {
	backend Backend
	// prog is the test program (testdata/wprobe or the native helper).
	prog string
	// exitBits is how many bits of the exit code the backend sees.
	exitBits int
	// zeroByteIsOne: wine turns a non-zero exit code whose low byte is 0
	// into 1 rather than report success.
	zeroByteIsOne bool
	// token names the heartbeat file directory, found in the command line
	// of the grandchild.
	tmp string
}

func (h *harness) run(t *testing.T, req Request) *Result {
	t.Helper()
	if req.Exe == "" {
		req.Exe = h.prog
	}
	res, err := h.backend.Run(context.Background(), &req)
	if err == nil && wineStartFailed(res) {
		// Wine itself, not the code under test, failed to start the
		// program (seen once in many CI runs, under load): one more try,
		// so that a second failure still fails the test.
		t.Logf("wine could not start %q (stderr %q): trying once more", req.Exe, res.Stderr.Bytes())
		res, err = h.backend.Run(context.Background(), &req)
	}
	if err != nil {
		t.Fatalf("Run(%q %q): %v", req.Exe, req.Args, err)
	}
	return res
}

// wineStartFailed reports whether res is the job helper's report that
// wine's CreateProcess failed with its catch-all status: the child died
// while wine was still setting it up, before any of its code ran.
func wineStartFailed(res *Result) bool {
	return res.ExitCode == 127 && bytes.Contains(res.Stderr.Bytes(), []byte("jobrun: CreateProcess: Internal error"))
}

func testArgvFidelity(t *testing.T, h *harness, args []string) {
	res := h.run(t, Request{Args: append([]string{"argv"}, args...)})
	var got []string
	if err := json.Unmarshal(bytes.TrimSpace(res.Stdout.Bytes()), &got); err != nil {
		t.Fatalf("argv printer output %q: %v (stderr %q)", res.Stdout.Bytes(), err, res.Stderr.Bytes())
	}
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("argv mangled (-sent +received):\n%s", diff)
	}
}

func testExitCodes(t *testing.T, h *harness, codes []int64) {
	for _, code := range codes {
		res := h.run(t, Request{Args: []string{"exit", strconv.FormatInt(code, 10)}})
		want := int(int32(uint32(code)))
		if h.exitBits == 8 {
			want = int(code & 0xFF)
			if want == 0 && code != 0 && h.zeroByteIsOne {
				want = 1
			}
		}
		if res.ExitCode != want {
			// Stderr says why when a launcher or the job helper failed
			// rather than the program (the helper exits 127 then).
			t.Errorf("exit %d: ExitCode = %d, want %d (%d-bit backend); stderr %q", code, res.ExitCode, want, h.exitBits, res.Stderr.Bytes())
		}
	}
}

func testSeparation(t *testing.T, h *harness) {
	res := h.run(t, Request{Args: []string{"split"}})
	out := strings.ReplaceAll(string(res.Stdout.Bytes()), "\r\n", "\n")
	errOut := strings.ReplaceAll(string(res.Stderr.Bytes()), "\r\n", "\n")
	if out != "out 0\nout 1\nout 2\n" || errOut != "err 0\nerr 1\nerr 2\n" {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	if res.ExitCode != 0 || res.TimedOut || res.Truncated() {
		t.Errorf("unexpected result %+v", res)
	}
}

func testStdin(t *testing.T, h *harness) {
	in := bytes.Repeat([]byte("stdin data \x00\xff 中\n"), 20000) // > pipe buffers
	res := h.run(t, Request{Args: []string{"stdin"}, Stdin: in})
	if !bytes.Equal(res.Stdout.Bytes(), in) {
		t.Errorf("stdin echo: got %d bytes, want %d", len(res.Stdout.Bytes()), len(in))
	}
	// No stdin means empty stdin, never ours.
	res = h.run(t, Request{Args: []string{"stdin"}})
	if res.Stdout.Total != 0 {
		t.Errorf("empty stdin produced %q", res.Stdout.Bytes())
	}
}

// testFlood checks a 50 MiB stream is capped to head and tail, counted in
// full, and read with bounded memory.
func testFlood(t *testing.T, h *harness) {
	const total = 50 << 20
	const limit = 1 << 20
	var res *Result
	peak := peakHeap(func() {
		res = h.run(t, Request{Args: []string{"flood", strconv.Itoa(total)}, MaxOutput: limit})
	})
	o := res.Stdout
	if o.Total != total || !o.Truncated() || len(o.Head) != limit/2 || len(o.Tail) != limit/2 {
		t.Fatalf("Total %d head %d tail %d truncated %v", o.Total, len(o.Head), len(o.Tail), o.Truncated())
	}
	for i, b := range o.Head {
		if b != pattern(int64(i)) {
			t.Fatalf("head byte %d = %q", i, b)
		}
	}
	off := int64(total - len(o.Tail))
	for i, b := range o.Tail {
		if b != pattern(off+int64(i)) {
			t.Fatalf("tail byte %d = %q", i, b)
		}
	}
	if !res.Truncated() || !strings.Contains(res.StdoutText(), TruncationMark(total-limit)) {
		t.Errorf("truncation mark missing")
	}
	// Live heap while 50 MiB streamed past: the caps (2 MiB), pipe and
	// frame buffers, and garbage awaiting collection; never the stream.
	if peak > 40<<20 {
		t.Errorf("heap peaked at %d MiB while reading 50 MiB: memory not bounded", peak>>20)
	}
}

// peakHeap runs f while sampling the heap, and returns the largest
// HeapAlloc seen.
func peakHeap(f func()) uint64 {
	runtime.GC()
	stop := make(chan struct{})
	peakc := make(chan uint64)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				peakc <- peak
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	return <-peakc
}

// testTimeoutKillsGrandchild starts a program that starts a grandchild
// writing heartbeats, waits for the program's handshake line in the
// output of the timed-out run, and then requires the grandchild to be gone.
func testTimeoutKillsGrandchild(t *testing.T, h *harness, timeout time.Duration) {
	hb := h.tmp + "/heartbeat-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	start := time.Now()
	res := h.run(t, Request{Args: []string{"spawn", hb}, Timeout: timeout})
	if !res.TimedOut {
		t.Fatalf("not timed out: %+v stderr %q", res, res.Stderr.Bytes())
	}
	if !strings.Contains(string(res.Stdout.Bytes()), "grandchild-up") {
		t.Fatalf("output printed before the timeout was lost: stdout %q stderr %q", res.Stdout.Bytes(), res.Stderr.Bytes())
	}
	if el := time.Since(start); el > timeout+10*time.Second {
		t.Errorf("run took %v for a %v timeout", el, timeout)
	}
	// The grandchild's command line holds the heartbeat path.
	if err := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(hb)) == 0 }); err != nil {
		t.Fatalf("grandchild still alive: %v", wintest.Processes(hb))
	}
	// And the heartbeat has stopped: it does not change across 25 beats.
	last, _ := os.ReadFile(hb)
	if err := pollUntil(500*time.Millisecond, func() bool {
		now, _ := os.ReadFile(hb)
		return !bytes.Equal(now, last)
	}); err == nil {
		t.Fatal("heartbeat still advancing after the run returned")
	}
}

// pollUntil polls cond until it holds or d passes; it returns an error on
// timeout. Polling with a deadline, not sleeping, is how tests wait for
// another process.
func pollUntil(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return nil
		}
		if time.Now().After(deadline) {
			return context.DeadlineExceeded
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}
