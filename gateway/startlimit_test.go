//go:build linux

package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// gateDir is where gated helpers (WB_GATE_DIR) report their starts and
// wait for the test to let them go.
type gateDir string

// gatedConfig configures the servers names, each a helper holding its
// start in dir.
func gatedConfig(t *testing.T, dir gateDir, names ...string) *client.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &client.Config{Servers: map[string]*client.ServerConfig{}}
	for _, name := range names {
		cfg.Servers[name] = &client.ServerConfig{Name: name, Command: exe, Lifecycle: client.KeepAlive,
			Env: map[string]string{helperEnv: "hostile", "WB_GATE_DIR": string(dir), "GORACE": "atexit_sleep_ms=0",
				"WB_SERVER": name}} // read by serverOf
	}
	return cfg
}

// serverOf is the name of the server the helper pid runs.
func serverOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	for kv := range strings.SplitSeq(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, "WB_SERVER="); ok {
			return v
		}
	}
	t.Fatalf("helper %d names no server", pid)
	return ""
}

// pids lists the helpers that wrote prefix.PID.
func (d gateDir) pids(prefix string) []int {
	m, _ := filepath.Glob(filepath.Join(string(d), prefix+".*"))
	var out []int
	for _, f := range m {
		if pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), prefix+".")); err == nil {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// underWay is how many starts have begun and not yet ended.
func (d gateDir) underWay() int { return len(d.pids("in")) - len(d.pids("out")) }

// releaseOne lets the first held start not yet let go go on.
func (d gateDir) releaseOne(t *testing.T) {
	t.Helper()
	for _, pid := range d.pids("in") {
		name := filepath.Join(string(d), "go."+strconv.Itoa(pid))
		if _, err := os.Stat(name); err != nil {
			if err := os.WriteFile(name, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("no held start to let go")
}

// maxSeen is the most starts under way that any helper found when its
// own began.
func (d gateDir) maxSeen(t *testing.T) int {
	t.Helper()
	most := 0
	for _, pid := range d.pids("seen") {
		b, err := os.ReadFile(filepath.Join(string(d), "seen."+strconv.Itoa(pid)))
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(string(b))
		if err != nil {
			t.Fatalf("seen.%d: %q", pid, b)
		}
		most = max(most, n)
	}
	return most
}

// awaitGate polls cond; an error from it fails the test at once (a bound
// broken is not waited out).
func awaitGate(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronization
	}
}

// releaseInTurn lets the held starts go one at a time, checking before
// each that exactly min(limit, total-released) are under way, never more
// than limit, and that released of them have ended.
func (d gateDir) releaseInTurn(t *testing.T, limit, released, total int) {
	t.Helper()
	for ; released < total; released++ {
		want := min(limit, total-released)
		awaitGate(t, fmt.Sprintf("%d starts under way, %d done", want, released), func() (bool, error) {
			if u := d.underWay(); u > limit {
				return false, fmt.Errorf("%d upstreams starting at once; the bound is %d", u, limit)
			}
			return d.underWay() == want && len(d.pids("out")) == released, nil
		})
		d.releaseOne(t)
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func serverNames(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// processGone reports whether pid no longer runs (or is a zombie).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return os.IsNotExist(err)
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// TestGatewayBoundsConcurrentStarts: Start launches at most
// MaxConcurrentStarts upstreams at once; the others wait their turn
// ("starting") and all become ready as the held starts are let go.
// Before, all six were launched at the same moment.
func TestGatewayBoundsConcurrentStarts(t *testing.T) {
	const n, limit = 6, 2
	dir := gateDir(t.TempDir())
	g, err := New(&Options{Config: gatedConfig(t, dir, serverNames("s", n)...), MaxConcurrentStarts: limit,
		Process: client.ProcessOptions{Logger: quiet()}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	started := make(chan error, 1)
	go func() { started <- g.Start(ctx) }()

	dir.releaseInTurn(t, limit, 0, n)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if got := len(dir.pids("in")); got != n {
		t.Errorf("%d upstreams launched, want %d", got, n)
	}
	if most := dir.maxSeen(t); most > limit {
		t.Errorf("an upstream found %d starts under way; the bound is %d", most, limit)
	}
	for _, st := range g.Status() {
		if st.State != StateReady {
			t.Errorf("%s: %s %v", st.Name, st.State, st.Err)
		}
	}
}

// TestGatewayReloadSharesStartLimit: the upstreams a Reload adds wait for
// the slots of those still starting. Before, they were launched at once,
// past the bound.
func TestGatewayReloadSharesStartLimit(t *testing.T) {
	const limit = 2
	dir := gateDir(t.TempDir())
	first := serverNames("a", limit)
	g, err := New(&Options{Config: gatedConfig(t, dir, first...), MaxConcurrentStarts: limit,
		Process: client.ProcessOptions{Logger: quiet()}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	started := make(chan error, 1)
	go func() { started <- g.Start(ctx) }()
	awaitGate(t, "the first starts held", func() (bool, error) { return dir.underWay() == limit, nil })

	// The first servers are kept (their configuration is the same); two
	// more are added while they hold both slots.
	if err := g.Reload(&Options{Config: gatedConfig(t, dir, append(first, serverNames("b", 2)...)...)}); err != nil {
		t.Fatal(err)
	}
	dir.releaseInTurn(t, limit, 0, limit+2)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := g.waitSettled(ctx); err != nil {
		t.Fatalf("after Reload: %v", err)
	}
	if most := dir.maxSeen(t); most > limit {
		t.Errorf("an upstream found %d starts under way; the bound is %d", most, limit)
	}
	if got := len(dir.pids("in")); got != limit+2 {
		t.Errorf("%d upstreams launched, want %d", got, limit+2)
	}
}

// TestGatewayCloseWhileStartsWait: Close ends the starts under way and
// those waiting for a slot without their being let go; Start returns,
// the waiting upstreams never launch, and no process or goroutine is
// left.
func TestGatewayCloseWhileStartsWait(t *testing.T) {
	before := runtime.NumGoroutine()
	const n, limit = 6, 2
	dir := gateDir(t.TempDir())
	g, err := New(&Options{Config: gatedConfig(t, dir, serverNames("s", n)...), MaxConcurrentStarts: limit,
		Process: client.ProcessOptions{Logger: quiet(), StopGrace: 100 * time.Millisecond, KillGrace: 100 * time.Millisecond}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started := make(chan error, 1)
	go func() { started <- g.Start(ctx) }()
	awaitGate(t, "the starts held", func() (bool, error) {
		if u := dir.underWay(); u > limit {
			return false, fmt.Errorf("%d upstreams starting at once; the bound is %d", u, limit)
		}
		return dir.underWay() == limit, nil
	})
	for _, st := range g.Status() {
		if st.State != StateStarting {
			t.Errorf("%s: %s, want starting", st.Name, st.State)
		}
	}

	closed := make(chan struct{})
	go func() {
		g.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close hung while starts waited")
	}
	select {
	case err := <-started:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Start ended by Close: %v; want ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("Start did not return after Close")
	}
	held := dir.pids("in")
	if len(held) != limit {
		t.Errorf("%d upstreams launched, want the %d held: the waiting ones launched after Close", len(held), limit)
	}
	for _, pid := range held {
		if !processGone(pid) {
			t.Errorf("upstream process %d still runs after Close", pid)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 { // the race detector and timers may keep one or two
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline: goroutines end on their own schedule
	}
}

// TestGatewayKillSwitchEndsStartWait: the kill switch thrown on an
// upstream waiting for a slot ends its wait: it never launches, and it
// holds no slot (Start settles once the other is let go).
func TestGatewayKillSwitchEndsStartWait(t *testing.T) {
	dir := gateDir(t.TempDir())
	g, err := New(&Options{Config: gatedConfig(t, dir, "a", "b"), MaxConcurrentStarts: 1,
		Process: client.ProcessOptions{Logger: quiet()}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started := make(chan error, 1)
	go func() { started <- g.Start(ctx) }()
	awaitGate(t, "one start held", func() (bool, error) {
		if u := dir.underWay(); u > 1 {
			return false, fmt.Errorf("%d upstreams starting at once; the bound is 1", u)
		}
		return dir.underWay() == 1, nil
	})
	held := serverOf(t, dir.pids("in")[0])
	waiting := map[string]string{"a": "b", "b": "a"}[held]
	if err := g.SetServerEnabled(waiting, false); err != nil {
		t.Fatal(err)
	}
	dir.releaseOne(t)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if got := len(dir.pids("in")); got != 1 {
		t.Errorf("%d upstreams launched; the disabled one launched too", got)
	}
	for _, st := range g.Status() {
		want := map[string]ServerState{held: StateReady, waiting: StateDisabled}[st.Name]
		if st.State != want {
			t.Errorf("%s: %s, want %s", st.Name, st.State, want)
		}
	}
	// Enabled again, it starts in the slot the first left.
	if err := g.SetServerEnabled(waiting, true); err != nil {
		t.Fatal(err)
	}
	awaitGate(t, "the enabled server held", func() (bool, error) { return len(dir.pids("in")) == 2, nil })
	dir.releaseOne(t)
	waitState(t, g, waiting, StateReady)
}
