//go:build unix

package winexec

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

func localHarness(t *testing.T) *harness {
	return &harness{backend: &Local{}, prog: nativeHelper(t), exitBits: 8, tmp: t.TempDir()}
}

func TestLocalArgv(t *testing.T) { testArgvFidelity(t, localHarness(t), hostileArgs) }

func TestLocalExitCodes(t *testing.T) {
	testExitCodes(t, localHarness(t), []int64{0, 1, 3, 255, 256, 300})
}

func TestLocalSeparation(t *testing.T) { testSeparation(t, localHarness(t)) }

func TestLocalStdin(t *testing.T) { testStdin(t, localHarness(t)) }

func TestLocalFlood(t *testing.T) { testFlood(t, localHarness(t)) }

func TestLocalTimeoutKillsGrandchild(t *testing.T) {
	testTimeoutKillsGrandchild(t, localHarness(t), 2*time.Second)
}

func TestLocalEnvAndCwd(t *testing.T) {
	h := localHarness(t)
	res := h.run(t, Request{Args: []string{"env", "WINEXEC_X"}, Env: map[string]string{"WINEXEC_X": "a b"}})
	if got := string(res.Stdout.Bytes()); got != "true a b\n" {
		t.Errorf("env: %q", got)
	}
	dir := t.TempDir()
	res = h.run(t, Request{Args: []string{"cwd"}, Cwd: dir})
	if got := strings.TrimSpace(string(res.Stdout.Bytes())); got != dir {
		t.Errorf("cwd: %q, want %q", got, dir)
	}
}

func TestLocalCancel(t *testing.T) {
	h := localHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	token := "cancel-token-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	done := make(chan struct{})
	var res *Result
	var err error
	go func() {
		defer close(done)
		res, err = h.backend.Run(ctx, &Request{Exe: h.prog, Args: []string{"hang", token}})
	}()
	// Handshake: wait until the program is running, seen as its process.
	if perr := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(token)) > 0 }); perr != nil {
		t.Fatal("helper never started")
	}
	cancel()
	<-done
	if !errors.Is(err, context.Canceled) || res == nil || res.TimedOut {
		t.Fatalf("err %v res %+v, want context.Canceled with a result", err, res)
	}
	if perr := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(token)) == 0 }); perr != nil {
		t.Fatal("cancelled program still running")
	}
}

func TestLocalStartError(t *testing.T) {
	_, err := (&Local{}).Run(context.Background(), &Request{Exe: "/nonexistent/prog"})
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want StartError", err)
	}
	if _, err := (&Local{}).Run(context.Background(), &Request{Exe: "x", Args: []string{"a\x00"}}); !errors.Is(err, ErrNUL) {
		t.Fatalf("NUL: %v", err)
	}
	if _, err := (&Local{}).Run(context.Background(), &Request{Exe: "x", CommandLine: "raw"}); !errors.Is(err, ErrRawCommandLine) {
		t.Fatalf("raw command line: %v", err)
	}
}
