//go:build linux

package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/proctest"
	"github.com/winbridge/winbridge/internal/startgatetest"
	"github.com/winbridge/winbridge/mcp"
)

// TestManagerBoundsConcurrentStarts: Start runs at most
// MaxConcurrentStarts starts at once; the others wait their turn, and
// each starts as a slot frees. The children count the starts under way;
// the test lets them finish one by one. Before, all twelve were launched
// at once.
func TestManagerBoundsConcurrentStarts(t *testing.T) {
	noLeaks(t)
	const n, limit = 12, 3
	dir := startgatetest.NewDir(t)
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%02d", i)] = helperServerJSON(t, nil, "WB_GATE_DIR="+string(dir))
	}
	m := client.NewManager(parseConfig(t, servers), &client.ManagerOptions{MaxConcurrentStarts: limit,
		Process: client.ProcessOptions{Logger: quietLog, StartTimeout: 2 * time.Minute}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	started := make(chan error, 1)
	go func() { started <- m.Start(ctx) }()

	dir.ReleaseInTurn(t, limit, 0, n, func() int { return client.StartsWaiting(m) })
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if got := len(dir.PIDs("in")); got != n {
		t.Errorf("%d servers started, want %d", got, n)
	}
	if most := dir.MaxSeen(t); most > limit {
		t.Errorf("a server found %d starts under way; the bound is %d", most, limit)
	}
	for _, st := range m.Status() {
		if st.State != client.StateReady {
			t.Errorf("%s: %v %v", st.Name, st.State, st.Err)
		}
	}
	if w := client.StartsWaiting(m); w != 0 {
		t.Errorf("%d starts still waiting", w)
	}
}

// TestManagerStartWaitHonoursContext: a start waiting for a slot returns
// when its context ends, with the context's error (not a StartError: the
// server was never tried), and holds no slot afterwards, nor waits for
// one.
func TestManagerStartWaitHonoursContext(t *testing.T) {
	noLeaks(t)
	dir := startgatetest.NewDir(t)
	cfg := parseConfig(t, map[string]any{
		"held":  helperServerJSON(t, nil, "WB_GATE_DIR="+string(dir)),
		"other": helperServerJSON(t, nil),
	})
	m := client.NewManager(cfg, &client.ManagerOptions{MaxConcurrentStarts: 1, Process: client.ProcessOptions{Logger: quietLog}})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := m.Server(ctx, "held")
		held <- err
	}()
	startgatetest.Await(t, "held to start", func() (bool, error) { return len(dir.PIDs("in")) == 1, nil })

	wctx, wcancel := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		_, err := m.Server(wctx, "other")
		waited <- err
	}()
	startgatetest.Await(t, "other to wait for a slot", func() (bool, error) { return client.StartsWaiting(m) == 1, nil })
	wcancel()
	select {
	case err := <-waited:
		if !errors.Is(err, context.Canceled) || errors.As(err, new(*client.StartError)) {
			t.Errorf("cancelled wait: %v; want context.Canceled, not a StartError", err)
		}
	case <-ctx.Done():
		t.Fatal("a cancelled wait for a slot did not return")
	}
	// The caller returns at once; its start, which no one else waits
	// for, stops waiting for a slot a moment later, on its own goroutine.
	startgatetest.Await(t, "the abandoned start to stop waiting for a slot", func() (bool, error) {
		return client.StartsWaiting(m) == 0, nil
	})
	for _, st := range m.Status() {
		if st.Name == "other" && (st.Pid != 0 || !st.NextAttempt.IsZero()) {
			t.Errorf("other: %+v; want never started, no backoff", st)
		}
	}

	dir.Release(t, dir.PIDs("in")[0])
	if err := <-held; err != nil {
		t.Fatalf("held: %v", err)
	}
	// With one slot, this starts only if neither start kept it.
	if _, err := m.Server(ctx, "other"); err != nil {
		t.Fatalf("other after the wait: %v", err)
	}
}

// TestManagerCloseWhileStartsWait: Close ends the start under way and
// those waiting for a slot, at once, and their callers get
// ErrManagerClosed.
func TestManagerCloseWhileStartsWait(t *testing.T) {
	noLeaks(t)
	dir := startgatetest.NewDir(t)
	cfg := parseConfig(t, map[string]any{
		"held": helperServerJSON(t, nil, "WB_GATE_DIR="+string(dir)),
		"w1":   helperServerJSON(t, nil),
		"w2":   helperServerJSON(t, nil),
	})
	m := client.NewManager(cfg, &client.ManagerOptions{MaxConcurrentStarts: 1, Process: client.ProcessOptions{Logger: quietLog}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make(chan error, 3)
	start := func(name string) {
		go func() {
			_, err := m.Server(ctx, name)
			errs <- err
		}()
	}
	start("held")
	startgatetest.Await(t, "held to start", func() (bool, error) { return len(dir.PIDs("in")) == 1, nil })
	start("w1")
	start("w2")
	startgatetest.Await(t, "two starts to wait", func() (bool, error) { return client.StartsWaiting(m) == 2, nil })
	pid := dir.PIDs("in")[0]

	closed := make(chan struct{})
	go func() {
		m.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close hung while starts waited")
	}
	for range 3 {
		if err := <-errs; !errors.Is(err, client.ErrManagerClosed) {
			t.Errorf("a start ended by Close: %v; want ErrManagerClosed", err)
		}
	}
	if !pollUntil(5*time.Second, func() bool { return proctest.Gone(pid) }) {
		t.Errorf("the held server %d was left running", pid)
	}
	if len(dir.PIDs("in")) != 1 {
		t.Errorf("servers launched after Close: %v", dir.PIDs("in"))
	}
}

// TestManagerRestartTakesASlot: the restart of a crashed autoRestart
// server waits for a slot like any start, and Close ends that wait.
// Before, a crash of many servers at once restarted them all at once.
func TestManagerRestartTakesASlot(t *testing.T) {
	for _, closeFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("close=%v", closeFirst), func(t *testing.T) {
			noLeaks(t)
			dir := startgatetest.NewDir(t)
			cfg := parseConfig(t, map[string]any{
				"r":    helperServerJSON(t, map[string]any{"autoRestart": true}),
				"held": helperServerJSON(t, nil, "WB_GATE_DIR="+string(dir)),
			})
			m := client.NewManager(cfg, &client.ManagerOptions{MaxConcurrentStarts: 1, Process: client.ProcessOptions{
				Logger: quietLog, Restart: &client.RestartPolicy{InitialDelay: time.Millisecond, Jitter: -1}}})
			defer m.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			p, err := m.Server(ctx, "r")
			if err != nil {
				t.Fatal(err)
			}
			held := make(chan error, 1)
			go func() {
				_, err := m.Server(ctx, "held")
				held <- err
			}()
			startgatetest.Await(t, "held to start", func() (bool, error) { return len(dir.PIDs("in")) == 1, nil })

			if _, err := p.CallTool(ctx, "crash", map[string]int{"code": 3}); err == nil {
				t.Fatal("crash did not fail the call")
			}
			startgatetest.Await(t, "the restart to wait for a slot", func() (bool, error) {
				return client.StartsWaiting(m) == 1 && p.State() == client.StateRestarting, nil
			})
			if pid := p.Pid(); pid != 0 {
				t.Errorf("a server runs (pid %d) while its restart waits", pid)
			}

			if closeFirst {
				closed := make(chan struct{})
				go func() {
					m.Close()
					close(closed)
				}()
				select {
				case <-closed:
				case <-ctx.Done():
					t.Fatal("Close hung while a restart waited")
				}
				<-held
				if s := p.State(); s != client.StateStopped {
					t.Errorf("after Close: %v", s)
				}
				return
			}
			dir.Release(t, dir.PIDs("in")[0])
			if err := <-held; err != nil {
				t.Fatalf("held: %v", err)
			}
			startgatetest.Await(t, "the restart", func() (bool, error) { return p.State() == client.StateReady, nil })
			if n := p.Restarts(); n != 1 {
				t.Errorf("%d restarts, want 1", n)
			}
		})
	}
}

// TestManagerStartAfterClose: Start after Close launches nothing and says
// why. Before, it launched every server and killed each when its start
// saw the Manager closed: programs ran after Close had returned.
func TestManagerStartAfterClose(t *testing.T) {
	noLeaks(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := parseConfig(t, map[string]any{
		"a": map[string]any{"command": "sh", "args": []string{"-c", `echo run >> "$RUNS"; exec "$EXE"`},
			"env": map[string]string{"RUNS": runs, "EXE": exe, helperEnv: "server", "GORACE": "atexit_sleep_ms=0"}},
	})
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Start(ctx); err != client.ErrManagerClosed {
		t.Errorf("Start after Close: %v; want ErrManagerClosed", err)
	}
	if _, err := m.Server(ctx, "a"); !errors.Is(err, client.ErrManagerClosed) {
		t.Errorf("Server after Close: %v; want ErrManagerClosed", err)
	}
	if b, _ := os.ReadFile(runs); len(b) != 0 {
		t.Errorf("launched after Close: %q", b)
	}
}

// TestManagerCloseWaitsForIdleStop: Close returns only once an ephemeral
// server it found stopping for idleness is gone. Before, the idle stop
// was out of Close's sight: Close returned with the server still running
// (one that ignores SIGTERM, until its SIGKILL).
func TestManagerCloseWaitsForIdleStop(t *testing.T) {
	noLeaks(t)
	cfg := parseConfig(t, map[string]any{
		"e": helperServerJSON(t, map[string]any{"lifecycle": "ephemeral"}, "WB_IGNORE_TERM=1"),
	})
	m := client.NewManager(cfg, &client.ManagerOptions{IdleTimeout: time.Millisecond,
		Process: client.ProcessOptions{Logger: quietLog}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Server starts it without arming the idle stop; the call's end arms it.
	p, err := m.Server(ctx, "e")
	if err != nil {
		t.Fatal(err)
	}
	pid := p.Pid()
	if _, err := m.CallTool(ctx, "e__echo", map[string]string{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	startgatetest.Await(t, "the idle stop", func() (bool, error) { return !m.Status()[0].Running, nil })
	m.Close()
	if !proctest.Gone(pid) {
		t.Errorf("server %d still running after Close", pid)
	}
}

// TestManagerSharedStartOutlivesFirstCaller: a start shared by several
// callers is theirs, not its first caller's. The first caller giving up
// returns at once with its own cause, and the others still get the
// server once it is ready. Before, the first caller's context ended the
// start, and every other caller got its cancellation.
func TestManagerSharedStartOutlivesFirstCaller(t *testing.T) {
	m, dir, ctx := heldManager(t)
	firstGone := errors.New("the first caller went away")
	fctx, fcancel := context.WithCancelCause(ctx)
	first := make(chan error, 1)
	go func() {
		_, err := m.Server(fctx, "held")
		first <- err
	}()
	startgatetest.Await(t, "the first start to be under way", func() (bool, error) { return len(dir.PIDs("in")) == 1, nil })
	second := make(chan error, 1)
	go func() {
		p, err := m.Server(ctx, "held")
		if err == nil && p.State() != client.StateReady {
			err = fmt.Errorf("state %v", p.State())
		}
		second <- err
	}()
	startgatetest.Await(t, "the second caller to share the start", func() (bool, error) { return client.StartWaiters(m, "held") == 2, nil })
	fcancel(firstGone)
	if err := <-first; !errors.Is(err, firstGone) {
		t.Fatalf("first caller: %v; want its own cause", err)
	}
	if w := client.StartWaiters(m, "held"); w != 1 {
		t.Fatalf("%d callers wait for the start, want 1", w)
	}
	dir.Release(t, dir.PIDs("in")[0])
	if err := <-second; err != nil {
		t.Fatalf("second caller: %v; want the server", err)
	}
	if n := len(dir.PIDs("in")); n != 1 {
		t.Errorf("%d starts, want the one shared", n)
	}
}

// TestManagerSharedStartAbandoned: once every caller has given up, the
// start ends (its child is gone), it counts as no failure, and the next
// caller starts afresh rather than inherit the cancellation.
func TestManagerSharedStartAbandoned(t *testing.T) {
	m, dir, ctx := heldManager(t)
	// The abandoned start is held as it ends, so that the next caller
	// comes while it is still under way.
	releaseEnd := client.HoldLaunchEnds(t)
	defer releaseEnd() // before Close, which waits for the start to end
	var cancels []context.CancelFunc
	errs := make(chan error, 2)
	for range 2 {
		cctx, ccancel := context.WithCancel(ctx)
		cancels = append(cancels, ccancel)
		go func() {
			_, err := m.Server(cctx, "held")
			errs <- err
		}()
	}
	startgatetest.Await(t, "both callers to share the start under way", func() (bool, error) {
		return client.StartWaiters(m, "held") == 2 && len(dir.PIDs("in")) == 1, nil
	})
	pid := dir.PIDs("in")[0]
	for _, c := range cancels {
		c()
	}
	for range 2 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("a caller that gave up: %v; want context.Canceled", err)
		}
	}
	startgatetest.Await(t, "the abandoned start's child to be gone", func() (bool, error) { return proctest.Gone(pid), nil })
	// The next caller starts anew, once the abandoned start has ended:
	// the gate holds its child too.
	next := make(chan error, 1)
	go func() {
		_, err := m.Server(ctx, "held")
		next <- err
	}()
	startgatetest.Await(t, "the next caller to wait for the abandoned start to end", func() (bool, error) {
		return client.SawAbandoned(m, "held") == 1, nil
	})
	releaseEnd()
	startgatetest.Await(t, "a second child to start", func() (bool, error) { return len(dir.PIDs("in")) == 2, nil })
	for _, p := range dir.PIDs("in") {
		if p != pid {
			dir.Release(t, p)
		}
	}
	if err := <-next; err != nil {
		t.Fatalf("the caller after the abandoned start: %v", err)
	}
	for _, st := range m.Status() {
		if !st.NextAttempt.IsZero() {
			t.Errorf("an abandoned start set a backoff: %+v", st)
		}
	}
}

// heldManager is a Manager of one server, "held", whose starts the
// returned gate holds; it closes as the test ends. ctx bounds the test.
func heldManager(t *testing.T) (*client.Manager, startgatetest.Dir, context.Context) {
	noLeaks(t)
	dir := startgatetest.NewDir(t)
	m := client.NewManager(parseConfig(t, map[string]any{"held": helperServerJSON(t, nil, "WB_GATE_DIR="+string(dir))}),
		&client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog}})
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return m, dir, ctx
}

// TestManagerAbandonedEphemeralStartSleeps: an ephemeral server whose
// start every caller gave up on, but which came up all the same (its
// Launch had returned as the last caller left), still stops when idle.
// Before, it ran until the next call or Close: the callers' release had
// found no process to arm the idle stop for, and the start stored one
// with no idle stop armed.
func TestManagerAbandonedEphemeralStartSleeps(t *testing.T) {
	noLeaks(t)
	dir := startgatetest.NewDir(t)
	ready := make(chan struct{}, 1)
	m := client.NewManager(parseConfig(t, map[string]any{
		"eph": helperServerJSON(t, map[string]any{"lifecycle": "ephemeral"}, "WB_GATE_DIR="+string(dir)),
	}), &client.ManagerOptions{IdleTimeout: time.Millisecond, Process: client.ProcessOptions{Logger: quietLog,
		OnStateChange: func(s client.State, _ error) {
			if s == client.StateReady {
				select {
				case ready <- struct{}{}:
				default:
				}
			}
		}}})
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	releaseEnd := client.HoldLaunchEnds(t)
	defer releaseEnd()

	cctx, ccancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := m.Tools(cctx)
		gaveUp <- err
	}()
	startgatetest.Await(t, "the start to be under way", func() (bool, error) { return len(dir.PIDs("in")) == 1, nil })
	pid := dir.PIDs("in")[0]
	dir.Release(t, pid)
	select {
	case <-ready: // Launch has done its handshake: it returns the process
	case <-ctx.Done():
		t.Fatal("the server never became ready")
	}
	ccancel() // the only caller gives up as the start ends
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up: %v; want context.Canceled", err)
	}
	releaseEnd()
	startgatetest.Await(t, "the unused ephemeral server to stop", func() (bool, error) {
		return !m.Status()[0].Running && proctest.Gone(pid), nil
	})
}

// TestManagerFailedStartLeftLateCounts: a start that failed on its own
// counts as a failed start (a backoff, a StartError) even if its caller
// gave up while it was cleaning up after the failure (here, a server
// that failed its handshake and lingers through StopGrace and
// KillGrace). Before, the caller's leaving made it an abandoned start:
// no backoff, and every call launched the failing server again.
func TestManagerFailedStartLeftLateCounts(t *testing.T) {
	noLeaks(t)
	lingering := make(chan struct{}, 1)
	m := client.NewManager(parseConfig(t, map[string]any{
		// The junk server knows no server/discover: a client that wants
		// 2026-07-28 fails its handshake.
		"bad": helperServerJSON(t, nil, "WINBRIDGE_CLIENT_HELPER=junk", "WB_LINGER=1"),
	}), &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog,
		StopGrace: 200 * time.Millisecond, KillGrace: 200 * time.Millisecond,
		Client: &client.Options{ProtocolVersion: mcp.LatestVersion},
		OnStderr: func(line string) {
			if strings.Contains(line, "lingering") {
				select {
				case lingering <- struct{}{}:
				default:
				}
			}
		}}})
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	cctx, ccancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := m.Server(cctx, "bad")
		gaveUp <- err
	}()
	select {
	case <-lingering: // the handshake failed; the start is stopping the server
	case <-ctx.Done():
		t.Fatal("the server never failed its handshake")
	}
	ccancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up: %v; want context.Canceled", err)
	}
	startgatetest.Await(t, "the failed start to end", func() (bool, error) { return !m.Status()[0].Running, nil })
	st := m.Status()[0]
	var se *client.StartError
	if !errors.As(st.Err, &se) || st.NextAttempt.IsZero() {
		t.Fatalf("a start that failed on its own set no backoff: %+v", st)
	}
	if _, err := m.Server(ctx, "bad"); !errors.As(err, &se) {
		t.Errorf("the next call: %v; want the StartError, not another start", err)
	}
}
