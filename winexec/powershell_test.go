//go:build unix

package winexec

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

// The PowerShell backends are tested against fakePowerShell, a test double
// (see its doc comment): no PowerShell exists on the test machines.

func fakePSBackend(t *testing.T, mode string) *PowerShell {
	return &PowerShell{
		Exe:    fakePS(t, mode),
		WinCwd: t.TempDir(),
		Paths:  &PathMapper{Distro: fakeDistro},
		Grace:  2 * time.Second,
	}
}

func psHarnesses(t *testing.T) map[string]*harness {
	ps := fakePSBackend(t, "normal")
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal"), PoolSize: 2}
	t.Cleanup(func() { host.Close() })
	noise := &PSHost{PowerShell: *fakePSBackend(t, "noise")}
	t.Cleanup(func() { noise.Close() })
	prog := nativeHelper(t)
	return map[string]*harness{
		"powershell":  {backend: ps, prog: prog, exitBits: 32, tmp: t.TempDir()},
		"pshost":      {backend: host, prog: prog, exitBits: 32, tmp: t.TempDir()},
		"pshostNoise": {backend: noise, prog: prog, exitBits: 32, tmp: t.TempDir()},
	}
}

func TestPowerShellContract(t *testing.T) {
	for name, h := range psHarnesses(t) {
		t.Run(name, func(t *testing.T) {
			t.Run("argv", func(t *testing.T) { testArgvFidelity(t, h, hostileArgs) })
			t.Run("separation", func(t *testing.T) { testSeparation(t, h) })
			t.Run("stdin", func(t *testing.T) { testStdin(t, h) })
			t.Run("exitCodes", func(t *testing.T) {
				// The helper is a Linux program (8 bits); wider codes
				// come from fake:exit below.
				testExitCodes(t, &harness{backend: h.backend, prog: h.prog, exitBits: 8}, []int64{0, 1, 3, 255})
			})
			t.Run("exitCodes32", func(t *testing.T) {
				for _, code := range []int64{256, 0xC0000005, 0xFFFFFFFF, 0x7FFFFFFF} {
					res := h.run(t, Request{Exe: "fake-exit-" + strconv.FormatInt(code, 10)})
					if want := int(int32(uint32(code))); res.ExitCode != want {
						t.Errorf("exit %#x: ExitCode %d, want %d", code, res.ExitCode, want)
					}
				}
			})
			t.Run("flood", func(t *testing.T) { testFlood(t, h) })
			t.Run("timeoutKillsGrandchild", func(t *testing.T) { testTimeoutKillsGrandchild(t, h, 2*time.Second) })
		})
	}
}

func TestPowerShellCodePageAndCwd(t *testing.T) {
	ps := fakePSBackend(t, "normal")
	dir := t.TempDir()
	res, err := ps.Run(context.Background(), &Request{Exe: nativeHelper(t), Args: []string{"cwd"}, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout.Bytes())); got != dir {
		t.Errorf("cwd %q, want %q (sent as a \\\\wsl.localhost path)", got, dir)
	}
	if res.CodePage != 437 || res.Backend != BackendPowerShell {
		t.Errorf("code page %d backend %q; the fake reports 437", res.CodePage, res.Backend)
	}
	ps.CodePage = 936
	res, err = ps.Run(context.Background(), &Request{Exe: nativeHelper(t), Args: []string{"env", "WB_X"}, Env: map[string]string{"WB_X": "v=1"}})
	if err != nil || res.CodePage != 936 || string(res.Stdout.Bytes()) != "true v=1\n" {
		t.Errorf("override code page / env: %v %+v %q", err, res, res.Stdout.Bytes())
	}
}

func TestPowerShellStartErrorIsTyped(t *testing.T) {
	ps := fakePSBackend(t, "normal")
	_, err := ps.Run(context.Background(), &Request{Exe: "/nonexistent/x.exe"})
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want StartError", err)
	}
	// A missing PowerShell is a StartError too.
	ps.Exe = "/nonexistent/powershell.exe"
	if _, err := ps.Run(context.Background(), &Request{Exe: "x"}); !errors.As(err, &se) {
		t.Fatalf("missing powershell: %v", err)
	}
}

func TestPowerShellHostFailures(t *testing.T) {
	prog := nativeHelper(t)
	tests := []struct {
		mode    string
		timeout time.Duration
		want    error
	}{
		{"crash", 0, ErrHostDied},
		{"hang", 300 * time.Millisecond, ErrHostDied},
		{"garbage", 0, ErrProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			start := time.Now()
			res, err := fakePSBackend(t, tt.mode).Run(context.Background(), &Request{Exe: prog, Args: []string{"split"}, Timeout: tt.timeout})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("took %v", el)
			}
			if tt.mode == "crash" && (res == nil || string(res.Stdout.Bytes()) != "partial") {
				t.Errorf("output before the crash lost: %+v", res)
			}
			if tt.mode == "hang" && (res == nil || !res.TimedOut) {
				t.Errorf("hang: want TimedOut result, got %+v", res)
			}
		})
	}
}

func TestPSHostRestartsAfterDeath(t *testing.T) {
	prog := nativeHelper(t)
	// A pool whose host crashes on every request: each call fails alone,
	// and the next call gets a fresh host.
	crash := &PSHost{PowerShell: *fakePSBackend(t, "crash")}
	defer crash.Close()
	for i := 0; i < 3; i++ {
		if _, err := crash.Run(context.Background(), &Request{Exe: prog, Args: []string{"split"}}); !errors.Is(err, ErrHostDied) {
			t.Fatalf("call %d: err = %v, want ErrHostDied", i, err)
		}
	}
	// A healthy pool reuses its hosts: many calls, at most PoolSize
	// PowerShell processes.
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal"), PoolSize: 2}
	defer host.Close()
	// Every PowerShell host, real or fake, has this in its command line.
	token := "-ExecutionPolicy Bypass -EncodedCommand"
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			res, err := host.Run(context.Background(), &Request{Exe: prog, Args: []string{"argv", strconv.Itoa(i)}})
			if err == nil && string(res.Stdout.Bytes()) != `["`+strconv.Itoa(i)+`"]`+"\n" {
				err = errors.New("wrong output " + string(res.Stdout.Bytes()))
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := len(wintest.ChildProcesses(token)); n < 1 || n > 2 {
		t.Errorf("%d PowerShell hosts alive, want 1..2", n)
	}
	host.Close()
	if err := pollUntil(5*time.Second, func() bool { return len(wintest.ChildProcesses(token)) == 0 }); err != nil {
		t.Errorf("hosts alive after Close: %v", wintest.ChildProcesses(token))
	}
	if _, err := host.Run(context.Background(), &Request{Exe: prog}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestPSHostCancel(t *testing.T) {
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal")}
	defer host.Close()
	prog := nativeHelper(t)
	token := "ps-cancel-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := host.Run(ctx, &Request{Exe: prog, Args: []string{"hang", token}})
		done <- err
	}()
	if err := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(token)) > 0 }); err != nil {
		t.Fatal("program never started")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if err := pollUntil(5*time.Second, func() bool { return len(wintest.Processes(token)) == 0 }); err != nil {
		t.Fatal("cancelled program still running: the bootstrap must kill its tree on cancel")
	}
	// The host survives a cancel and serves the next request.
	res, err := host.Run(context.Background(), &Request{Exe: prog, Args: []string{"exit", "7"}})
	if err != nil || res.ExitCode != 7 {
		t.Fatalf("after cancel: %v %+v", err, res)
	}
}

func TestPSHostReplacesHostThatDiedIdle(t *testing.T) {
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal")}
	defer host.Close()
	prog := nativeHelper(t)
	if _, err := host.Run(context.Background(), &Request{Exe: prog, Args: []string{"exit", "0"}}); err != nil {
		t.Fatal(err)
	}
	pids := wintest.ChildProcesses("-ExecutionPolicy Bypass -EncodedCommand")
	if len(pids) != 1 {
		t.Fatalf("want one idle host, found %v", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait until the pool can know: its session has seen the exit.
	if err := pollUntil(5*time.Second, func() bool {
		host.mu.Lock()
		defer host.mu.Unlock()
		return len(host.idle) == 1 && !host.idle[0].alive()
	}); err != nil {
		t.Fatal("host did not die")
	}
	res, err := host.Run(context.Background(), &Request{Exe: prog, Args: []string{"exit", "5"}})
	if err != nil || res.ExitCode != 5 {
		t.Fatalf("after the idle host died: %v %+v", err, res)
	}
}

// TestPSHostQueueDeadline: with every PowerShell process busy, a call
// fails with ErrBusy after QueueTimeout instead of waiting behind a call
// that may run for its whole timeout; the pool serves again once free.
func TestPSHostQueueDeadline(t *testing.T) {
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal"), PoolSize: 1, QueueTimeout: 300 * time.Millisecond}
	defer host.Close()
	prog := nativeHelper(t)
	token := "ps-queue-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := host.Run(ctx, &Request{Exe: prog, Args: []string{"hang", token}, Timeout: time.Hour})
		done <- err
	}()
	if err := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(token)) > 0 }); err != nil {
		cancel()
		<-done
		t.Fatal("long call never started")
	}
	start := time.Now()
	_, err := host.Run(context.Background(), &Request{Exe: prog, Args: []string{"exit", "0"}})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("second call: err = %v, want ErrBusy", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("second call waited %v; QueueTimeout is 300ms", el)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("long call: %v", err)
	}
	if res, err := host.Run(context.Background(), &Request{Exe: prog, Args: []string{"exit", "4"}}); err != nil || res.ExitCode != 4 {
		t.Fatalf("after the long call: %v %+v", err, res)
	}
}

// TestExecutorLongCallDoesNotStarveOthers: under the default settings a
// call with an enormous timeout does not hold the only PowerShell host;
// the next call runs at once.
func TestExecutorLongCallDoesNotStarveOthers(t *testing.T) {
	t.Setenv("WSL_DISTRO_NAME", "TestDistro")
	prog := nativeHelper(t)
	e, err := New(Config{
		Backend:       BackendPSHost,
		PowerShellExe: fakePS(t, "normal"),
		WinCwd:        t.TempDir(),
		Policy:        Policy{AllowExe: []string{prog}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	token := "ps-starve-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Run(ctx, Request{Exe: prog, Args: []string{"hang", token}, Timeout: 1000 * time.Hour})
		done <- err
	}()
	defer func() {
		cancel()
		<-done
	}()
	if err := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(token)) > 0 }); err != nil {
		t.Fatal("long call never started")
	}
	qctx, qcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer qcancel()
	res, err := e.Run(qctx, Request{Exe: prog, Args: []string{"exit", "6"}})
	if err != nil || res.ExitCode != 6 {
		t.Fatalf("second call behind a long one: %v %+v", err, res)
	}
}
