//go:build unix

package winexec

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winbridge/winbridge/internal/wintest"
)

// needJobHelper returns the wine environment and a direct backend that
// runs every program through jobrun.exe.
func needJobHelper(t *testing.T) (*wineEnv, *Direct) {
	t.Helper()
	e := needWine(t)
	return e, &Direct{Launcher: e.direct.Launcher, JobHelper: wintest.GoWindowsExe(t, "jobrun")}
}

func heartbeatPath(t *testing.T) string {
	return t.TempDir() + "/heartbeat-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// checkTreeKilled runs req, whose program makes a grandchild write
// heartbeats to hb and then prints "grandchild-up" (or
// "grandchild-refused" when Windows refused to start it) and hangs; it
// requires the timeout, the output printed before it, and the grandchild
// gone with its heartbeat stopped.
func checkTreeKilled(t *testing.T, b Backend, req Request, hb string) {
	t.Helper()
	start := time.Now()
	res, err := b.Run(context.Background(), &req)
	if err == nil && !res.TimedOut && res.ExitCode != 0 && len(res.Stdout.Bytes()) == 0 && len(res.Stderr.Bytes()) == 0 {
		// The probe prints before it can exit: an exit with nothing said,
		// at once, is wine failing to start it (seen once in a CI
		// rehearsal, exit 1 after 10 ms), not the job letting it go.
		t.Logf("wine ended %q at once with exit %d and no output: trying once more", req.Exe, res.ExitCode)
		start = time.Now()
		res, err = b.Run(context.Background(), &req)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout.Bytes())
	if !res.TimedOut {
		t.Fatalf("not timed out: exit %d stdout %q stderr %q", res.ExitCode, out, res.Stderr.Bytes())
	}
	if strings.Contains(out, "grandchild-refused") {
		return // nothing escaped: there is no grandchild
	}
	if !strings.Contains(out, "grandchild-up") {
		t.Fatalf("no handshake before the timeout: stdout %q stderr %q", out, res.Stderr.Bytes())
	}
	if el := time.Since(start); el > req.Timeout+10*time.Second {
		t.Errorf("run took %v for a %v timeout", el, req.Timeout)
	}
	if err := pollUntil(10*time.Second, func() bool { return len(wintest.Processes(hb)) == 0 }); err != nil {
		pids := wintest.Processes(hb)
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL) // do not leak it into later tests
		}
		t.Fatalf("grandchild still alive after the timeout: %v", pids)
	}
	last, _ := os.ReadFile(hb)
	if err := pollUntil(500*time.Millisecond, func() bool {
		now, _ := os.ReadFile(hb)
		return !bytes.Equal(now, last)
	}); err == nil {
		t.Fatal("heartbeat still advancing after the run returned")
	}
}

// TestWineJobKillsEscapedGrandchild: with the job helper, a grandchild
// started detached, in a new console, in a new process group, or asking to
// break away from the job dies on timeout. Under wine such a grandchild
// gets a Linux session of its own, so the process-group kill alone misses
// it (TestWineDirectMissesEscapedGrandchild).
func TestWineJobKillsEscapedGrandchild(t *testing.T) {
	e, d := needJobHelper(t)
	for _, mode := range []string{"detached", "console", "group", "breakaway"} {
		t.Run(mode, func(t *testing.T) {
			hb := heartbeatPath(t)
			checkTreeKilled(t, d, Request{Exe: e.wprobe, Args: []string{"spawnflags", mode, hb}, Timeout: 6 * time.Second}, hb)
		})
	}
}

// TestWineJobKillsCmdStart: the case, cmd /c start, through the
// Executor (the one-argument cmd.exe rule) and the helper. The first start
// in a prefix is slow (wine brings up its desktop), hence the timeout.
func TestWineJobKillsCmdStart(t *testing.T) {
	e, d := needJobHelper(t)
	ex := mustNew(t, Config{Policy: Policy{AllowExe: []string{"*"}}, Runner: d})
	hb := heartbeatPath(t)
	w := winPath(e.wprobe)
	script := `start "" ` + w + ` heartbeat ` + hb + ` & ` + w + ` waitfile ` + hb
	req := Request{Exe: "cmd.exe", Args: []string{"/C", script}, Timeout: 20 * time.Second}
	if err := applyCmdRule(&req); err != nil {
		t.Fatal(err)
	}
	checkTreeKilled(t, executorBackend{ex}, req, hb)
}

// executorBackend runs requests through an Executor.
type executorBackend struct{ ex *Executor }

func (b executorBackend) Run(ctx context.Context, req *Request) (*Result, error) {
	return b.ex.Run(ctx, *req)
}

// TestWineDirectMissesEscapedGrandchild pins the gap the helper closes,
// and is the job tests' check on the code before it: without the helper,
// a grandchild started in a new console or a new process group outlives
// the timeout under wine (wine 8 gives it a session of its own; a
// DETACHED_PROCESS one stays in the group). If wine changes, this test
// says so.
func TestWineDirectMissesEscapedGrandchild(t *testing.T) {
	e := needWine(t)
	for _, mode := range []string{"console", "group"} {
		hb := heartbeatPath(t)
		res, err := e.direct.Run(context.Background(), &Request{Exe: e.wprobe, Args: []string{"spawnflags", mode, hb}, Timeout: 6 * time.Second})
		if err != nil || !res.TimedOut || !strings.Contains(string(res.Stdout.Bytes()), "grandchild-up") {
			t.Fatalf("%s: %v %+v", mode, err, res)
		}
		// Still alive a second after the run returned? Poll for the
		// whole second: it must not die.
		died := pollUntil(time.Second, func() bool { return len(wintest.Processes(hb)) == 0 }) == nil
		for _, p := range wintest.Processes(hb) {
			_ = syscall.Kill(p, syscall.SIGKILL) // do not leak it
		}
		if died {
			t.Errorf("%s: the grandchild died with the process group: wine changed, and docs/WINDOWS.md should say so", mode)
		}
	}
}

// TestWineJobReleasedOnExit: a daemon started by a program that exits by
// itself survives (hdc's server must).
func TestWineJobReleasedOnExit(t *testing.T) {
	e, d := needJobHelper(t)
	hb := heartbeatPath(t)
	res, err := d.Run(context.Background(), &Request{Exe: e.wprobe, Args: []string{"daemon", hb}, Timeout: 20 * time.Second})
	if err != nil || res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("%v %+v stderr %q", err, res, res.Stderr.Bytes())
	}
	// Killing the helper's group after a normal exit must not reach it
	// either: the job was released, not closed with kill-on-close.
	alive := func() bool { return len(wintest.Processes(hb)) > 0 }
	if err := pollUntil(time.Second, func() bool { return !alive() }); err == nil {
		t.Fatal("the daemon died when the program exited")
	}
	for _, p := range wintest.Processes(hb) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// TestWineJobHelperFidelity: through the helper, argv, exit codes, stdin
// and the output streams are what they are without it.
func TestWineJobHelperFidelity(t *testing.T) {
	e, d := needJobHelper(t)
	h := &harness{backend: d, prog: e.wprobe, exitBits: 8, zeroByteIsOne: true, tmp: t.TempDir()}
	testArgvFidelity(t, h, hostileArgs)
	testExitCodes(t, h, []int64{0, 1, 3, 255})
	testSeparation(t, h)
	testStdin(t, h)
}

// TestWineJobHelperCmdRule: the helper passes any command line, so
// literal tokens with blanks and quotes reach the program through cmd.exe.
func TestWineJobHelperCmdRule(t *testing.T) {
	e, d := needJobHelper(t)
	ex := mustNew(t, Config{Policy: Policy{AllowExe: []string{"*"}}, Runner: d})
	var args []string
	for _, a := range append(append([]string{}, hostileArgs...), cmdHostileArgs...) {
		if !strings.ContainsAny(a, "\r\n") {
			args = append(args, a)
		}
	}
	dir := t.TempDir()
	res, err := ex.Run(context.Background(), Request{Exe: `C:\windows\system32\cmd.exe`, Args: append([]string{"/C", winPath(e.argvc)}, args...), Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(args, decodeHexArgv(t, res.Stdout.Bytes())); diff != "" {
		t.Errorf("argv through cmd.exe /C and the helper (-sent +received):\n%s", diff)
	}
	if ents, _ := os.ReadDir(dir); res.Stderr.Total != 0 || len(ents) != 0 {
		t.Errorf("something else ran: stderr %q, %d files", res.Stderr.Bytes(), len(ents))
	}
}

// TestWineLocalWindowsJob runs the Windows-only tests of this package
// (local_windows_test.go: Local's Job Object on the native Windows path)
// in a cross-compiled test binary under wine.
func TestWineLocalWindowsJob(t *testing.T) {
	w := wintest.NeedWine(t)
	exe := wintest.GoWindowsTestExe(t, ".")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for attempt := 1; ; attempt++ {
		cmd := w.Command(ctx, exe, "-test.run", "^TestLocalWindows", "-test.v")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err == nil && strings.Contains(string(out), "--- PASS: TestLocalWindowsJobDiesWithServer") &&
			strings.Contains(string(out), "--- PASS: TestLocalWindowsJobKillsStartedGrandchild") {
			return
		}
		// Under load wine's CreateProcess fails now and then with
		// ERROR_INTERNAL_ERROR before the program exists (seen once in a
		// CI rehearsal: "fork/exec C:\windows\system32\cmd.exe: Internal
		// error."): not the Job Object under test. Tried once more, and
		// logged; a second time fails the test as it is.
		if attempt == 1 && strings.Contains(string(out), "fork/exec") && strings.Contains(string(out), "Internal error.") {
			t.Logf("wine could not start a process; trying once more:\n%s", out)
			continue
		}
		t.Fatalf("windows tests under wine: %v\n%s", err, out)
	}
}

// TestWineJobHelperFromConfig: the helper named by WINBRIDGE_JOB_HELPER
// reaches the direct backend New makes, and contains the tree: a
// grandchild in a new process group, which escapes without it
// (TestWineDirectMissesEscapedGrandchild), dies on timeout.
func TestWineJobHelperFromConfig(t *testing.T) {
	e := needWine(t)
	cfg, err := ConfigFromEnvFunc(func(k string) string {
		switch k {
		case "WINBRIDGE_BACKEND":
			return BackendDirect
		case "WINBRIDGE_JOB_HELPER":
			return wintest.GoWindowsExe(t, "jobrun")
		case "ALLOW_EXE":
			return "*"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Launcher = e.direct.Launcher // the launcher wintest set up (its prefix)
	ex := mustNew(t, cfg)
	hb := heartbeatPath(t)
	checkTreeKilled(t, executorBackend{ex}, Request{Exe: e.wprobe, Args: []string{"spawnflags", "group", hb}, Timeout: 6 * time.Second}, hb)
}
