//go:build linux

package client_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestManagerBacksOffAFailedStart: a server that cannot start is not
// relaunched by every Tools and CallTool; they fail at once for it, naming
// the next attempt, while the other servers serve; after the backoff it is
// tried again, with a longer wait if it fails again.
func TestManagerBacksOffAFailedStart(t *testing.T) {
	noLeaks(t)
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := parseConfig(t, map[string]any{
		"good": helperServerJSON(t, nil),
		"bad": map[string]any{"command": "sh", "args": []string{"-c",
			`echo run >> "$RUNS"; echo 'npm error code E404' >&2; exit 1`}, "env": map[string]string{"RUNS": runs}},
	})
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog,
		Restart: &client.RestartPolicy{InitialDelay: 10 * time.Second, MaxDelay: time.Minute, Jitter: -1}}})
	client.SetManagerClock(m, clock.Now)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	launches := func() int {
		b, _ := os.ReadFile(runs)
		return bytes.Count(b, []byte("run\n"))
	}

	check := func(err error, attempt int, next time.Time) {
		t.Helper()
		var se *client.StartError
		if !errors.As(err, &se) || se.Attempts != attempt || !se.Next.Equal(next) {
			t.Fatalf("error %v: want a StartError, attempt %d, next %v", err, attempt, next)
		}
		if r := repeatedPrefix(err.Error()); r != "" || strings.Count(err.Error(), "failed to start") != 1 {
			t.Errorf("message %q says a part twice", err)
		}
		if !strings.Contains(err.Error(), "bad: failed to start (attempt") || !strings.Contains(err.Error(), "next attempt at "+next.Format("15:04:05")) {
			t.Errorf("message %q does not say when the next attempt is", err)
		}
	}
	// A start the caller cancels does not count against the server.
	cancelled, cancelNow := context.WithCancel(ctx)
	cancelNow()
	if _, err := m.Server(cancelled, "bad"); err == nil || errors.As(err, new(*client.StartError)) {
		t.Fatalf("a cancelled start: %v; want the context's error, not a StartError", err)
	}
	base := launches()

	t0 := clock.Now()
	tools, err := m.Tools(ctx)
	check(err, 1, t0.Add(10*time.Second))
	if len(tools) == 0 || launches() != base+1 {
		t.Fatalf("first Tools: %d tools, %d launches", len(tools), launches()-base)
	}
	for range 5 {
		tools, err = m.Tools(ctx)
		check(err, 1, t0.Add(10*time.Second))
		if len(tools) == 0 {
			t.Fatal("the good server's tools are missing")
		}
		if _, err := m.CallTool(ctx, "bad__anything", nil); !errors.As(err, new(*client.StartError)) {
			t.Fatalf("CallTool: %v", err)
		}
		clock.Advance(time.Second)
	}
	if n := launches() - base; n != 1 {
		t.Fatalf("relaunched %d times within the backoff", n-1)
	}
	for _, st := range m.Status() {
		if st.Name == "bad" && !st.NextAttempt.Equal(t0.Add(10*time.Second)) {
			t.Errorf("status: next attempt %v", st.NextAttempt)
		}
		if st.Name == "good" && !st.NextAttempt.IsZero() {
			t.Errorf("good: next attempt %v", st.NextAttempt)
		}
	}

	clock.Advance(5 * time.Second) // past the first backoff
	_, err = m.Tools(ctx)
	check(err, 2, clock.Now().Add(20*time.Second))
	if n := launches() - base; n != 2 {
		t.Fatalf("%d launches after the backoff, want 2", n)
	}
	if !errors.Is(err, client.ErrNpmNotFound) && !strings.Contains(err.Error(), "E404") {
		t.Errorf("the cause is lost: %v", err)
	}
}

// TestManagerBacksOffAServerThatExitsAfterStarting: a server that
// completes the handshake and exits at once (here on
// notifications/initialized) is paced like one that cannot start. Before,
// its start counted as a success, so every Tools and CallTool after the
// crash launched it again, at once and without end (an npx server: a
// download check and a node start each time).
func TestManagerBacksOffAServerThatExitsAfterStarting(t *testing.T) {
	noLeaks(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	cfg := parseConfig(t, map[string]any{
		"good": helperServerJSON(t, nil),
		"crashy": map[string]any{"command": "sh", "args": []string{"-c", `echo run >> "$RUNS"; exec "$EXE"`},
			"env": map[string]string{"RUNS": runs, "EXE": exe, helperEnv: "junk", "WB_EXIT_ON": "notifications/initialized",
				"GORACE": "atexit_sleep_ms=0"}},
	})
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	m := client.NewManager(cfg, &client.ManagerOptions{Process: client.ProcessOptions{Logger: quietLog,
		Restart: &client.RestartPolicy{InitialDelay: 10 * time.Second, MaxDelay: time.Minute, Jitter: -1}}})
	client.SetManagerClock(m, clock.Now)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	launches := func() int {
		b, _ := os.ReadFile(runs)
		return bytes.Count(b, []byte("run\n"))
	}
	failed := func() bool {
		for _, st := range m.Status() {
			if st.Name == "crashy" {
				return st.State == client.StateFailed
			}
		}
		return false
	}

	t0 := clock.Now()
	if _, err := m.Tools(ctx); err == nil || !strings.Contains(err.Error(), "crashy") {
		t.Fatalf("first Tools: %v, want the crash of crashy", err)
	}
	if !pollUntil(10*time.Second, failed) {
		t.Fatal("the server's exit was not noticed")
	}
	for range 5 {
		tools, err := m.Tools(ctx)
		var se *client.StartError
		if !errors.As(err, &se) || se.Attempts != 1 || !se.Next.Equal(t0.Add(10*time.Second)) {
			t.Fatalf("Tools after the crash: %v; want a StartError, attempt 1, next attempt %v", err, t0.Add(10*time.Second))
		}
		if !strings.Contains(err.Error(), "status 7") {
			t.Errorf("the cause is lost: %v", err)
		}
		if len(tools) == 0 {
			t.Fatal("the good server's tools are missing")
		}
		if _, err := m.CallTool(ctx, "crashy__t", nil); !errors.As(err, new(*client.StartError)) {
			t.Fatalf("CallTool: %v", err)
		}
		clock.Advance(time.Second)
	}
	if n := launches(); n != 1 {
		t.Fatalf("launched %d times within the backoff", n)
	}

	// Past the backoff it is tried again; crashing again at once, it
	// waits twice as long.
	clock.Advance(5 * time.Second)
	m.Tools(ctx)
	if n := launches(); n != 2 {
		t.Fatalf("%d launches after the backoff, want 2", n)
	}
	if !pollUntil(10*time.Second, failed) {
		t.Fatal("the second exit was not noticed")
	}
	var se *client.StartError
	if _, err := m.Tools(ctx); !errors.As(err, &se) || se.Attempts != 2 || !se.Next.Equal(clock.Now().Add(20*time.Second)) {
		t.Fatalf("after the second crash: %v; want attempt 2, next attempt in 20 s", err)
	}
}
