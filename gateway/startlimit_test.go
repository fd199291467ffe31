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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/proctest"
	"github.com/winbridge/winbridge/internal/startgatetest"
)

// gateDir is where gated helpers (WB_GATE_DIR) report their starts and
// wait for the test to let them go.
type gateDir = startgatetest.Dir

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

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func serverNames(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
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

	dir.ReleaseInTurn(t, limit, 0, n, nil)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if got := len(dir.PIDs("in")); got != n {
		t.Errorf("%d upstreams launched, want %d", got, n)
	}
	if most := dir.MaxSeen(t); most > limit {
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
	startgatetest.Await(t, "the first starts held", func() (bool, error) { return dir.UnderWay() == limit, nil })

	// The first servers are kept (their configuration is the same); two
	// more are added while they hold both slots.
	if err := g.Reload(&Options{Config: gatedConfig(t, dir, append(first, serverNames("b", 2)...)...)}); err != nil {
		t.Fatal(err)
	}
	dir.ReleaseInTurn(t, limit, 0, limit+2, nil)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := g.waitSettled(ctx); err != nil {
		t.Fatalf("after Reload: %v", err)
	}
	if most := dir.MaxSeen(t); most > limit {
		t.Errorf("an upstream found %d starts under way; the bound is %d", most, limit)
	}
	if got := len(dir.PIDs("in")); got != limit+2 {
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
	startgatetest.Await(t, "the starts held", func() (bool, error) {
		if u := dir.UnderWay(); u > limit {
			return false, fmt.Errorf("%d upstreams starting at once; the bound is %d", u, limit)
		}
		return dir.UnderWay() == limit, nil
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
	held := dir.PIDs("in")
	if len(held) != limit {
		t.Errorf("%d upstreams launched, want the %d held: the waiting ones launched after Close", len(held), limit)
	}
	for _, pid := range held {
		if !proctest.Gone(pid) {
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
	startgatetest.Await(t, "one start held", func() (bool, error) {
		if u := dir.UnderWay(); u > 1 {
			return false, fmt.Errorf("%d upstreams starting at once; the bound is 1", u)
		}
		return dir.UnderWay() == 1, nil
	})
	held := serverOf(t, dir.PIDs("in")[0])
	waiting := map[string]string{"a": "b", "b": "a"}[held]
	if err := g.SetServerEnabled(waiting, false); err != nil {
		t.Fatal(err)
	}
	dir.ReleaseOne(t)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if got := len(dir.PIDs("in")); got != 1 {
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
	startgatetest.Await(t, "the enabled server held", func() (bool, error) { return len(dir.PIDs("in")) == 2, nil })
	dir.ReleaseOne(t)
	waitState(t, g, waiting, StateReady)
}
