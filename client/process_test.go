//go:build linux

package client_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/internal/proctest"
)

func TestProcessEchoAndClose(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server"), nil)
	if p.State() != client.StateReady {
		t.Fatalf("state %v, want ready", p.State())
	}
	pid := p.Pid()
	res, err := p.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
	if err != nil || res.IsError || !strings.Contains(res.TextOf(), "hi") {
		t.Fatalf("echo: %v %+v", err, res)
	}
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	// A server that exits at the end of stdin is gone well within the grace.
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	if p.State() != client.StateStopped || !proctest.Gone(pid) {
		t.Errorf("after Close: state %v, process gone %v", p.State(), proctest.Gone(pid))
	}
	if _, err := p.CallTool(context.Background(), "echo", nil); !errors.Is(err, client.ErrStopped) {
		t.Errorf("call after Close: %v, want ErrStopped", err)
	}
}

func TestProcessCrashInTheMiddleOfACall(t *testing.T) {
	noLeaks(t)
	var exits []*client.ExitError
	var mu sync.Mutex
	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{OnExit: func(e *client.ExitError) {
		mu.Lock()
		exits = append(exits, e)
		mu.Unlock()
	}})
	// A call that is pending when the server dies, beside the one that kills it.
	c, err := p.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hung := c.CallToolAsync(context.Background(), "hang", nil)
	start := time.Now()
	_, err = p.CallTool(context.Background(), "crash", map[string]int{"code": 3})
	if d := time.Since(start); d > time.Second {
		t.Errorf("the call failed after %v, want < 1s", d)
	}
	var ee *client.ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || !errors.Is(err, client.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed with *ExitError code 3", err)
	}
	if !strings.Contains(string(ee.Stderr), "about to crash") || !strings.Contains(err.Error(), "about to crash") {
		t.Errorf("stderr tail missing: %q / %v", ee.Stderr, err)
	}
	select {
	case <-hung.Done():
	case <-time.After(time.Second):
		t.Fatal("the other pending call did not fail within 1s")
	}
	if _, err := hung.Wait(); !errors.As(err, &ee) || ee.Code != 3 {
		t.Errorf("pending call: %v", err)
	}
	if !pollUntil(time.Second, func() bool { return p.State() == client.StateFailed }) {
		t.Errorf("state %v, want failed", p.State())
	}
	if _, err := p.Client(context.Background()); !errors.As(err, &ee) {
		t.Errorf("Client after the crash: %v", err)
	}
	<-p.Done()
	mu.Lock()
	defer mu.Unlock()
	if len(exits) != 1 || exits[0].Code != 3 || exits[0].Stopped {
		t.Errorf("OnExit saw %+v", exits)
	}
}

func TestProcessCallToServerThatNeverAnswers(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server"), nil)
	start := time.Now()
	_, err := p.CallTool(context.Background(), "hang", nil, client.WithTimeout(300*time.Millisecond))
	d := time.Since(start)
	if !errors.Is(err, client.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d < 300*time.Millisecond || d > 2*time.Second {
		t.Errorf("timed out after %v, want about 300ms", d)
	}
	// The server is still usable.
	if _, err := p.CallTool(context.Background(), "echo", map[string]string{"text": "x"}); err != nil {
		t.Errorf("echo after a timeout: %v", err)
	}
}

func TestProcessIgnoringSIGTERMIsKilled(t *testing.T) {
	noLeaks(t)
	exited := make(chan *client.ExitError, 1)
	p := launch(t, helperCommand(t, "server", "WB_IGNORE_TERM=1"), &client.ProcessOptions{
		StopGrace: 200 * time.Millisecond,
		KillGrace: 300 * time.Millisecond,
		OnExit:    func(e *client.ExitError) { exited <- e },
	})
	pid := p.Pid()
	start := time.Now()
	p.Close()
	d := time.Since(start)
	if d < 500*time.Millisecond || d > 3*time.Second {
		t.Errorf("Close took %v, want the two graces (500ms) and little more", d)
	}
	e := <-exited
	if e.Signal != syscall.SIGKILL || !e.Stopped {
		t.Errorf("exit %+v, want SIGKILL and Stopped", e)
	}
	if !strings.Contains(string(e.Stderr), "staying up anyway") {
		t.Errorf("stderr %q", e.Stderr)
	}
	if !proctest.Gone(pid) {
		t.Errorf("process %d still there", pid)
	}
}

// grandchildPID reads the grandchild's pid from the helper's stderr.
func grandchildPID(t *testing.T, p *client.Process) int {
	t.Helper()
	var pid int
	re := regexp.MustCompile(`grandchild=(\d+)`)
	if !pollUntil(5*time.Second, func() bool {
		m := re.FindSubmatch(p.Stderr())
		if m != nil {
			pid, _ = strconv.Atoi(string(m[1]))
		}
		return m != nil
	}) {
		t.Fatalf("no grandchild pid in stderr %q", p.Stderr())
	}
	return pid
}

func TestProcessGrandchildHoldingStdoutIsKilledOnClose(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server", "WB_GRANDCHILD=1"), nil)
	pid, gc := p.Pid(), grandchildPID(t, p)
	if proctest.Gone(gc) {
		t.Fatal("grandchild not running")
	}
	start := time.Now()
	p.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	for _, id := range []int{pid, gc} {
		if !pollUntil(time.Second, func() bool { return proctest.Gone(id) }) {
			t.Errorf("process %d left behind", id)
		}
	}
}

func TestProcessCrashWithGrandchildHoldingStdout(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server", "WB_GRANDCHILD=1"), nil)
	gc := grandchildPID(t, p)
	start := time.Now()
	_, err := p.CallTool(context.Background(), "crash", map[string]int{"code": 4})
	// Waiting for the end of stdout would take the grandchild's hour, or
	// the call's 60 s timeout; the exit is noticed in milliseconds. The
	// bound leaves room for a loaded machine (a full -race run took 1.02 s
	// once) and still tells the two apart.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call failed after %v, want < 10s although stdout stays open", d)
	}
	var ee *client.ExitError
	if !errors.As(err, &ee) || ee.Code != 4 {
		t.Fatalf("err = %v, want exit status 4", err)
	}
	if !pollUntil(time.Second, func() bool { return proctest.Gone(gc) }) {
		t.Errorf("grandchild %d outlived the crashed server", gc)
	}
}

func TestProcessStderrFloodDoesNotStall(t *testing.T) {
	noLeaks(t)
	const flood = 10 << 20
	var lines atomic.Int64
	start := time.Now()
	p := launch(t, helperCommand(t, "server", "WB_STDERR_FLOOD="+strconv.Itoa(flood)), &client.ProcessOptions{
		StderrTail: 8 << 10,
		OnStderr:   func(string) { lines.Add(1) },
	})
	res, err := p.CallTool(context.Background(), "stderr", map[string]int{"bytes": flood}, client.WithTimeout(20*time.Second))
	if err != nil || !strings.Contains(res.TextOf(), "flooded") {
		t.Fatalf("call while flooding stderr: %v %+v", err, res)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("20 MiB of stderr took %v", d)
	}
	// The response can overtake the stderr it followed: poll until both
	// floods are drained and split into lines (each is flood/1024 lines
	// and a marker).
	var tail []byte
	want := int64(2 * (flood/1024 + 1))
	if !pollUntil(5*time.Second, func() bool {
		tail = p.Stderr()
		return lines.Load() >= want && strings.HasSuffix(string(tail), "END-OF-FLOOD\n")
	}) {
		t.Errorf("saw %d stderr lines (want >= %d); tail ends %q", lines.Load(), want, tail[max(0, len(tail)-40):])
	}
	if len(tail) > 8<<10 {
		t.Errorf("tail of %d bytes, want <= 8 KiB", len(tail))
	}
}

func TestProcessJunkOnStdoutIsSkipped(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "junk"), nil)
	for i := range 3 {
		res, err := p.CallTool(context.Background(), "t", nil)
		if err != nil || res.TextOf() != "ok" {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	if tools, err := p.ListTools(context.Background()); err != nil || len(tools) != 1 {
		t.Errorf("tools/list: %v %v", tools, err)
	}
}

func TestProcessExitDuringStartup(t *testing.T) {
	noLeaks(t)
	start := time.Now()
	_, err := client.Launch(context.Background(), helperCommand(t, "server", "WB_EXIT_AT_START=7"), &client.ProcessOptions{Logger: quietLog})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Launch took %v", d)
	}
	var ee *client.ExitError
	if !errors.As(err, &ee) || ee.Code != 7 {
		t.Fatalf("err = %v, want *ExitError with status 7", err)
	}
	if !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "configuration file is missing") {
		t.Errorf("error does not say what happened: %v", err)
	}
}

func TestProcessStartTimeout(t *testing.T) {
	noLeaks(t)
	start := time.Now()
	_, err := client.Launch(context.Background(), helperCommand(t, "silent"), &client.ProcessOptions{StartTimeout: 300 * time.Millisecond, Logger: quietLog})
	d := time.Since(start)
	if !errors.Is(err, client.ErrStartTimeout) {
		t.Fatalf("err = %v, want ErrStartTimeout", err)
	}
	// The upper bound only tells "gave up at the timeout" from "waited for
	// the 30 s default"; it is loose because a loaded machine is slow.
	if d < 300*time.Millisecond || d > 15*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

func TestProcessLaunchContextBoundsOnlyStartup(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	p, err := client.Launch(ctx, helperCommand(t, "server"), &client.ProcessOptions{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cancel()
	if _, err := p.CallTool(context.Background(), "echo", map[string]string{"text": "still here"}); err != nil {
		t.Errorf("the server died with the start-up context: %v", err)
	}
}

func TestProcessRestartsAfterCrash(t *testing.T) {
	noLeaks(t)
	var mu sync.Mutex
	var states []client.State
	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{
		Restart: &client.RestartPolicy{InitialDelay: 10 * time.Millisecond},
		OnStateChange: func(s client.State, err error) {
			mu.Lock()
			states = append(states, s)
			mu.Unlock()
		},
	})
	if _, err := p.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := p.Pid()
	_, err := p.CallTool(context.Background(), "crash", map[string]int{"code": 9})
	var ee *client.ExitError
	if !errors.As(err, &ee) || ee.Code != 9 {
		t.Fatalf("crash: %v", err)
	}
	// A call made now waits for the restart.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := p.CallTool(ctx, "echo", map[string]string{"text": "back"})
	if err != nil || !strings.Contains(res.TextOf(), "back") {
		t.Fatalf("call after the crash: %v", err)
	}
	if p.Restarts() != 1 || p.Pid() == pid || !proctest.Gone(pid) {
		t.Errorf("restarts %d, pid %d (was %d)", p.Restarts(), p.Pid(), pid)
	}
	if tools, err := p.Tools(ctx); err != nil || len(tools) < 5 {
		t.Errorf("tools after the restart: %d %v", len(tools), err)
	}
	mu.Lock()
	got := slices.Clone(states)
	mu.Unlock()
	want := []client.State{client.StateReady, client.StateRestarting, client.StateReady}
	if !slices.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
}

func TestProcessFailFastDuringRestart(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{
		Restart: &client.RestartPolicy{InitialDelay: time.Second, Jitter: -1, FailFast: true},
	})
	p.CallTool(context.Background(), "crash", map[string]int{"code": 1})
	if !pollUntil(time.Second, func() bool { return p.State() == client.StateRestarting }) {
		t.Fatalf("state %v", p.State())
	}
	start := time.Now()
	_, err := p.CallTool(context.Background(), "echo", nil)
	if !errors.Is(err, client.ErrRestarting) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("err = %v after %v, want ErrRestarting at once", err, time.Since(start))
	}
}

func TestProcessGivesUpAfterMaxRestarts(t *testing.T) {
	noLeaks(t)
	crashFile := filepath.Join(t.TempDir(), "crash")
	p := launch(t, helperCommand(t, "server", "WB_CRASH_FILE="+crashFile), &client.ProcessOptions{
		Restart: &client.RestartPolicy{InitialDelay: 10 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxRestarts: 2},
	})
	if err := os.WriteFile(crashFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.CallTool(context.Background(), "crash", map[string]int{"code": 1})
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("still %v", p.State())
	}
	var ee *client.ExitError
	if err := p.Err(); p.State() != client.StateFailed || !strings.Contains(err.Error(), "gave up after 2 restarts") || !errors.As(err, &ee) || ee.Code != 5 {
		t.Errorf("state %v, err %v", p.State(), err)
	}
}

func TestProcessHealthCheckRestartsHungServer(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{
		Health:  &client.HealthCheck{Interval: 50 * time.Millisecond, Timeout: 100 * time.Millisecond, Failures: 2},
		Restart: &client.RestartPolicy{InitialDelay: 10 * time.Millisecond},
	})
	pid := p.Pid()
	// A stopped process answers nothing, like a deadlocked one.
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if !pollUntil(5*time.Second, func() bool { return p.Restarts() == 1 && p.State() == client.StateReady }) {
		t.Fatalf("not restarted: state %v, restarts %d", p.State(), p.Restarts())
	}
	if !proctest.Gone(pid) {
		t.Errorf("the hung process %d is still there", pid)
	}
	if _, err := p.CallTool(context.Background(), "echo", nil); err != nil {
		t.Errorf("after the restart: %v", err)
	}
}

func TestProcessHealthCheckMarksFailed(t *testing.T) {
	noLeaks(t)
	p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{
		Health: &client.HealthCheck{Interval: 50 * time.Millisecond, Timeout: 100 * time.Millisecond, Failures: 2},
	})
	syscall.Kill(p.Pid(), syscall.SIGSTOP)
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("still %v", p.State())
	}
	if err := p.Err(); !errors.Is(err, client.ErrUnresponsive) {
		t.Errorf("err = %v, want ErrUnresponsive", err)
	}
}

// envOf calls the helper's env tool.
func envOf(t *testing.T, p *client.Process) (env []string, cwd string) {
	t.Helper()
	res, err := p.CallTool(context.Background(), "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := res.StructuredContent.(map[string]any)
	for _, e := range m["env"].([]any) {
		env = append(env, e.(string))
	}
	return env, m["cwd"].(string)
}

func TestProcessEnvironmentAndDir(t *testing.T) {
	noLeaks(t)
	t.Setenv("WB_SECRET_TOKEN", "hunter2")
	dir := t.TempDir()
	cmd := helperCommand(t, "server", "WB_CONFIGURED=yes")
	cmd.Dir = dir
	env, cwd := envOf(t, launch(t, cmd, nil))
	if slices.Contains(env, "WB_SECRET_TOKEN=hunter2") || !slices.Contains(env, "WB_CONFIGURED=yes") {
		t.Errorf("default environment %v: want the allowlist plus WB_CONFIGURED, without the secret", env)
	}
	if path := os.Getenv("PATH"); !slices.Contains(env, "PATH="+path) {
		t.Errorf("PATH not passed")
	}
	if real, _ := filepath.EvalSymlinks(dir); cwd != dir && cwd != real {
		t.Errorf("cwd %q, want %q", cwd, dir)
	}
}

// TestProcessInheritsNetworkSettingsNotSecrets: what a server needs to
// reach the network behind a proxy (proxies, certificates), and the locale
// and temporary directory, pass by default; credentials do not.
func TestProcessInheritsNetworkSettingsNotSecrets(t *testing.T) {
	noLeaks(t)
	pass := map[string]string{
		"HTTPS_PROXY": "http://proxy.example:3128", "https_proxy": "http://proxy.example:3128",
		"HTTP_PROXY": "http://proxy.example:3128", "http_proxy": "http://proxy.example:3128",
		"NO_PROXY": "localhost,127.0.0.1", "no_proxy": "localhost", "ALL_PROXY": "socks5://proxy.example:1080",
		"NODE_EXTRA_CA_CERTS": "/etc/corp/ca.pem", "SSL_CERT_FILE": "/etc/corp/ca.pem", "SSL_CERT_DIR": "/etc/corp/certs",
		"npm_config_cafile": "/etc/corp/ca.pem", "LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8", "LC_CTYPE": "C.UTF-8",
		"TZ": "Asia/Shanghai", "TMPDIR": t.TempDir(),
	}
	keep := map[string]string{
		"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI", "GITHUB_TOKEN": "ghp_x", "DB_PASSWORD": "hunter2",
		"NPM_TOKEN": "npm_x", "npm_config__authToken": "npm_y", "OPENAI_API_KEY": "sk-x", "LC_API_TOKEN": "z",
		"WB_UNRELATED": "1",
	}
	for k, v := range pass {
		t.Setenv(k, v)
	}
	for k, v := range keep {
		t.Setenv(k, v)
	}
	env, _ := envOf(t, launch(t, helperCommand(t, "server"), nil))
	for k, v := range pass {
		if !slices.Contains(env, k+"="+v) {
			t.Errorf("%s=%s did not pass to the child", k, v)
		}
	}
	for k := range keep {
		for _, kv := range env {
			if strings.HasPrefix(kv, k+"=") {
				t.Errorf("%s passed to the child by default", k)
			}
		}
	}
}

func TestProcessInheritEnvPassesEverything(t *testing.T) {
	noLeaks(t)
	t.Setenv("WB_SECRET_TOKEN", "hunter2")
	cmd := helperCommand(t, "server")
	cmd.InheritEnv = true
	env, _ := envOf(t, launch(t, cmd, nil))
	if !slices.Contains(env, "WB_SECRET_TOKEN=hunter2") {
		t.Errorf("InheritEnv did not pass the whole environment")
	}
}

// A call made while the server restarts waits for the restart within its
// own timeout: the wait is part of the call. Before, a call without a
// deadline waited for every attempt of a server that kept failing to
// start (here 8, 400 ms apart), far past the client's 200 ms.
func TestProcessCallDuringRestartKeepsItsTimeout(t *testing.T) {
	noLeaks(t)
	crashFile := filepath.Join(t.TempDir(), "crash")
	p := launch(t, helperCommand(t, "server", "WB_CRASH_FILE="+crashFile), &client.ProcessOptions{
		Client:  &client.Options{Timeout: 200 * time.Millisecond},
		Restart: &client.RestartPolicy{InitialDelay: 400 * time.Millisecond, MaxDelay: 400 * time.Millisecond, MaxRestarts: 8},
	})
	if err := os.WriteFile(crashFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.CallTool(context.Background(), "crash", map[string]int{"code": 1})
	for _, call := range []struct {
		name string
		f    func() error
	}{
		{"CallTool", func() error { _, err := p.CallTool(context.Background(), "echo", nil); return err }},
		{"ListTools", func() error { _, err := p.ListTools(context.Background()); return err }},
		{"Ping", func() error { return p.Ping(context.Background()) }},
		{"Call", func() error { return p.Call(context.Background(), "ping", nil, nil) }},
	} {
		start := time.Now()
		err := call.f()
		elapsed := time.Since(start)
		if !errors.Is(err, client.ErrTimeout) {
			t.Fatalf("%s during a restart, after %v (state %v): %v, want ErrTimeout", call.name, elapsed, p.State(), err)
		}
		if elapsed > 2*time.Second {
			t.Errorf("%s took %v during a restart with a timeout of 200ms", call.name, elapsed)
		}
	}
}

// A server's stderr reaches StderrLogger at a bounded rate: a burst of
// 256 KiB and 16 KiB a second after it, counting each record's own
// overhead; past it lines are skipped from the log, with a count, while
// OnStderr and the tail still see everything. The winbridge gateway logs
// its upstreams' stderr this way, to the host's log file: before, a
// server writing lines without end wrote a record for each, more bytes
// than it sent, until the disk was full.
func TestProcessStderrLoggerIsRateBounded(t *testing.T) {
	noLeaks(t)
	const flood = 8 << 20 // 8192 lines of 1 KiB
	var records logrec.Counter
	var logged logrec.Buffer
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var lines atomic.Int64
	start := time.Now()
	p := launch(t, helperCommand(t, "server", "WB_STDERR_FLOOD="+strconv.Itoa(flood)), &client.ProcessOptions{
		StderrLogger: slog.New(multiHandler{&records, log.Handler()}),
		OnStderr:     func(string) { lines.Add(1) },
	})
	if !pollUntil(10*time.Second, func() bool {
		return strings.HasSuffix(string(p.Stderr()), "END-OF-FLOOD\n") && lines.Load() > flood/1024
	}) {
		t.Fatalf("the flood was not drained: %d lines", lines.Load())
	}
	secs := time.Since(start).Seconds() + 1
	p.Close() // the count of the lines skipped last is logged at the end of stderr
	if max := int64((256<<10 + secs*(16<<10)) / 1024); records.Count() > max+2 {
		t.Errorf("%d stderr records logged in %.1f s, want at most %d", records.Count(), secs, max+2)
	}
	if !strings.Contains(logged.String(), "skipped") {
		t.Errorf("no word of the skipped lines in the log: %q", logged.String())
	}
}

// multiHandler hands each record to every handler.
type multiHandler []slog.Handler

func (m multiHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range m {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (m multiHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range m {
		if h.Enabled(ctx, r.Level) {
			_ = h.Handle(ctx, r.Clone())
		}
	}
	return nil
}

func (m multiHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(multiHandler, len(m))
	for i, h := range m {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (m multiHandler) WithGroup(name string) slog.Handler {
	out := make(multiHandler, len(m))
	for i, h := range m {
		out[i] = h.WithGroup(name)
	}
	return out
}

// A server's stderr line reaches StderrLogger with its escape sequences,
// CRs and bidirectional overrides written out: slog's default handler
// writes a record's message as it is, so before, a server could clear,
// retitle or drive the terminal the log was shown on, or overwrite a log
// line with a CR. OnStderr and the tail still get the line as written.
func TestProcessStderrLoggerEscapesTerminalControls(t *testing.T) {
	noLeaks(t)
	const line = "\x1b]0;owned\x07\x1b[2J ok\rINFO forged \u202etxt.exe \x9b"
	var sink logrec.Sink
	var mu sync.Mutex
	var raw []string
	p := launch(t, helperCommand(t, "server", "WB_STDERR_LINE="+line), &client.ProcessOptions{
		StderrLogger: slog.New(&sink),
		OnStderr: func(s string) {
			mu.Lock()
			raw = append(raw, s)
			mu.Unlock()
		},
	})
	p.Close() // stderr is drained to its end before Close returns
	var msgs []string
	for _, r := range sink.All() {
		if r["server"] != "" {
			msgs = append(msgs, r["msg"])
		}
	}
	want := `\x1b]0;owned\a\x1b[2J ok\rINFO forged \u202etxt.exe ` + "\ufffd"
	if len(msgs) != 1 || msgs[0] != want {
		t.Errorf("stderr logged as %q, want [%q]", msgs, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(raw) != 1 || raw[0] != line {
		t.Errorf("OnStderr got %q, want [%q]", raw, line)
	}
	if got := string(p.Stderr()); got != line+"\n" {
		t.Errorf("stderr tail %q, want %q", got, line+"\n")
	}
}

// A bare command is looked up in the PATH the child gets, as Node's
// child_process.spawn (and so Claude Desktop, Cursor and VS Code) does:
// an "env": {"PATH": ...} in the config is how users point a host at the
// node or npx they want. Before, the lookup used this process's PATH: the
// program was not found, or another one ran, with the config's PATH set
// in its environment.
func TestProcessCommandResolvedInTheChildsPATH(t *testing.T) {
	noLeaks(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	theirs, ours := t.TempDir(), t.TempDir()
	for _, l := range []string{filepath.Join(theirs, "wb-server-in-env-path"), filepath.Join(ours, "wb-server-in-our-path")} {
		if err := os.Symlink(exe, l); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", ours+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd := helperCommand(t, "server", "PATH="+theirs)
	cmd.Path = "wb-server-in-env-path"
	p := launch(t, cmd, nil)
	if res, err := p.CallTool(context.Background(), "echo", map[string]string{"text": "hi"}); err != nil || res.IsError || !strings.Contains(res.TextOf(), "hi") {
		t.Fatalf("echo: %v %v", res, err)
	}

	// And one only in this process's PATH is not found by a server whose
	// env sets another.
	cmd.Path = "wb-server-in-our-path"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := client.Launch(ctx, cmd, &client.ProcessOptions{Logger: quietLog})
	if err == nil {
		q.Close()
		t.Fatal("a program outside the server's PATH was run")
	}
	if !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "wb-server-in-our-path") {
		t.Errorf("got %v, want exec.ErrNotFound naming the program", err)
	}
	if strings.Contains(err.Error(), theirs) {
		t.Errorf("the error repeats the server's PATH: %v", err)
	}
}

// A relative command with a separator runs from the entry's cwd, also when
// the cwd is itself relative ("cwd": "servers/fs", "command": "./run").
// Before, the command was joined to the cwd and then, as exec takes a
// relative path from the child's directory, looked for under the cwd
// twice (servers/fs/servers/fs/run): not found.
func TestProcessRelativeCommandInRelativeDir(t *testing.T) {
	noLeaks(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("servers", "fs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join("servers", "fs", "run")); err != nil {
		t.Fatal(err)
	}
	cmd := helperCommand(t, "server")
	cmd.Path, cmd.Dir = "./run", filepath.Join("servers", "fs")
	_, cwd := envOf(t, launch(t, cmd, nil))
	if want, _ := filepath.Abs(cmd.Dir); cwd != want {
		t.Errorf("cwd %q, want %q", cwd, want)
	}
}

// A command line written whole as the program ("command": "npx -y pkg",
// no "args"), which no host splits, fails with a hint to use args.
// Before, the error said only that no such file was found, and named
// the server "pkg" (the part after the last slash).
func TestProcessCommandLineAsProgramHints(t *testing.T) {
	noLeaks(t)
	for _, path := range []string{"npx -y @modelcontextprotocol/server-filesystem /tmp", "uvx mcp-server-fetch"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		p, err := client.Launch(ctx, &client.Command{Path: path}, &client.ProcessOptions{Logger: quietLog})
		cancel()
		if err == nil {
			p.Close()
			t.Fatalf("%q: launched", path)
		}
		if !strings.Contains(err.Error(), `"args"`) {
			t.Errorf("%q: %v, want a hint to put the arguments in \"args\"", path, err)
		}
	}
}
