package winexec

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

// TestMain lets the test binary act as its own helper programs (a fake
// powershell.exe and a native test program, selected by environment), and
// checks after the run that no goroutine or process was leaked.
func TestMain(m *testing.M) {
	if mode := os.Getenv(fakePSEnv); mode != "" {
		os.Exit(fakePowerShell(mode))
	}
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helperMain(os.Args[1:]))
	}
	code := m.Run()
	runToken := wintest.RunToken()
	wintest.Cleanup()
	if code == 0 {
		if err := checkLeaks(runToken); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: leak after tests:", err)
			code = 1
		}
	}
	if helperDir != "" {
		os.RemoveAll(helperDir)
	}
	os.Exit(code)
}

// checkLeaks polls (with a deadline, not a sleep) until the goroutines are
// back to the count before the tests and no process started from our
// helper scripts or wintest's directory is alive.
func checkLeaks(runToken string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		var problems []string
		if leaked := leakedGoroutines(); len(leaked) > 0 {
			problems = append(problems, fmt.Sprintf("%d goroutines left:\n%s", len(leaked), strings.Join(leaked, "\n\n")))
		}
		tokens := []string{}
		if helperDir != "" {
			tokens = append(tokens, filepath.Base(helperDir))
		}
		if runToken != "" {
			tokens = append(tokens, runToken)
		}
		for _, tok := range tokens {
			if pids := wintest.Processes(tok); len(pids) > 0 {
				problems = append(problems, fmt.Sprintf("processes matching %q still alive: %v", tok, pids))
			}
		}
		if len(problems) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s", strings.Join(problems, "\n"))
		}
		runtime.Gosched()
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

// leakedGoroutines returns the stacks of goroutines still running code of
// this package, os/exec or wintest; runtime and testing goroutines (signal
// handling, the fuzzer) are not ours to check.
func leakedGoroutines() []string {
	buf := make([]byte, 4<<20)
	all := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
	var out []string
	for _, g := range all {
		if strings.Contains(g, "winexec.checkLeaks") {
			continue
		}
		if strings.Contains(g, "winbridge/winexec.") || strings.Contains(g, "os/exec.") || strings.Contains(g, "internal/wintest.") {
			out = append(out, g)
		}
	}
	return out
}

const (
	fakePSEnv = "WINEXEC_FAKE_POWERSHELL"
	helperEnv = "WINEXEC_TEST_HELPER"
	// helperToken appears in the path of every helper script, so leak
	// checks can find their processes.
	helperToken = "winexec-helper-"
)

var (
	helperOnce sync.Once
	helperDir  string
	helperErr  error
)

// helperScript returns a shell script that execs this test binary with the
// given environment variable, so a backend can start "a different
// program" without passing environment (exec keeps the PID).
func helperScript(t testing.TB, name, env, value string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("helper scripts need a POSIX shell")
	}
	helperOnce.Do(func() {
		helperDir, helperErr = os.MkdirTemp("", helperToken)
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(helperDir, name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	// The race detector sleeps a second at exit unless told not to.
	script := fmt.Sprintf("#!/bin/sh\nGORACE=atexit_sleep_ms=0 %s=%s exec '%s' \"$@\"\n", env, value, exe)
	if err := os.WriteFile(p+".tmp", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
	return p
}

// nativeHelper is the test binary acting as a native test program (see
// helperMain).
func nativeHelper(t testing.TB) string { return helperScript(t, "helper", helperEnv, "1") }

// fakePS is the test binary acting as powershell.exe in the given mode.
func fakePS(t testing.TB, mode string) string {
	return helperScript(t, "powershell-"+mode+".exe", fakePSEnv, mode)
}
