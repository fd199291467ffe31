package main

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
	"github.com/winbridge/winbridge/mcp"
)

// quiet is the log of sessions whose log the tests do not read.
var quiet = slog.New(slog.DiscardHandler)

// Requirement: a command past the timeout returns its partial output as a
// tool error with a clear note; cdb, which ignores the interrupt, is
// killed, and the next command opens a new session.
func TestTimeoutReturnsPartialOutput(t *testing.T) {
	f := newFake(t)
	f.cfg.Timeout, f.cfg.Grace = 300*time.Millisecond, 300*time.Millisecond
	h := startServer(t, f.cfg)
	c := connect(t, h.url)
	res := c.eval(map[string]any{"command": "hang"})
	text := res.Content[0].Text
	if !res.IsError {
		t.Errorf("a timed-out command is not a tool error: %s", text)
	}
	for _, want := range []string{"hanging: this command never finishes", "did not finish within 300ms", "partial", "killed", "new session"} {
		if !strings.Contains(text, want) {
			t.Errorf("timeout result lacks %q:\n%s", want, text)
		}
	}
	if res := c.eval(map[string]any{"command": "k"}); res.IsError || !strings.Contains(res.Content[0].Text, "app!main+0x42") {
		t.Fatalf("k after the timeout: %+v", res)
	}
	ev := f.events(t)
	if count(ev, "start ") != 2 {
		t.Errorf("want the session reopened once after the kill; events %q", ev)
	}
	if runtime.GOOS != "windows" && count(ev, "interrupt") == 0 {
		t.Errorf("cdb was not interrupted before the kill; events %q", ev)
	}
}

// A command that answers the interrupt (the fake's "wait") keeps the
// session and its state.
func TestTimeoutInterruptKeepsSession(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("interrupting cdb needs process groups (Unix)")
	}
	f := newFake(t)
	f.cfg.Timeout = 300 * time.Millisecond
	s := NewSession(f.cfg, quiet)
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	res, err := s.Eval(ctx, "wait")
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || !res.Kept || !strings.Contains(res.Output, "waiting for an interrupt\ninterrupted") {
		t.Fatalf("wait: %+v", res)
	}
	tr := toolResult(ToolName, f.cfg, res)
	if !tr.IsError || !strings.Contains(tr.Content[0].(*mcp.TextContent).Text, "It was interrupted and the session goes on") {
		t.Errorf("an interrupted command is not a tool error: %+v", tr)
	}
	if res, err := s.Eval(ctx, "r"); err != nil || res.TimedOut || !strings.Contains(res.Output, "rip=") {
		t.Fatalf("r after the interrupt: %+v %v", res, err)
	}
	if ev := f.events(t); count(ev, "start ") != 1 {
		t.Errorf("the session was reopened; events %q", ev)
	}
}

// Requirement: commands are serialized; concurrent calls each get their
// own output.
func TestCommandsAreSerialized(t *testing.T) {
	f := newFake(t)
	s := NewSession(f.cfg, quiet)
	t.Cleanup(func() { s.Close(context.Background()) })
	want := map[string]string{"k": "app!main+0x42", "lm": "KERNELBASE (deferred)", "r": "rip=", "!analyze -v": "FAILURE_BUCKET_ID"}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(want))
	for range 4 {
		for cmd, w := range want {
			wg.Go(func() {
				res, err := s.Eval(context.Background(), cmd)
				switch {
				case err != nil:
					errs <- err
				case !strings.Contains(res.Output, w):
					errs <- errors.New(cmd + ": output lacks " + w + ":\n" + res.Output)
				case strings.Count(res.Output, "Child-SP") > 0 && cmd != "k":
					errs <- errors.New(cmd + ": holds another command's output:\n" + res.Output)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(f.commands(t)); got != 4*len(want) {
		t.Errorf("the fake received %d commands; want %d", got, 4*len(want))
	}
}

// Requirement: shutdown closes the session with q for a dump, qd for an
// attached process and CTRL+B for a remote client, and cdb exits.
func TestCloseSendsQuit(t *testing.T) {
	for _, tc := range []struct {
		name, quit string
		target     func(*Config)
	}{
		{"dump", "q", func(c *Config) {}},
		{"pid", "qd", func(c *Config) { c.Dump, c.PID = "", 4242 }},
		{"remote", ctrlB, func(c *Config) { c.Dump, c.Remote = "", "tcp:server=debughost,port=5005" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			tc.target(&f.cfg)
			s := NewSession(f.cfg, quiet)
			if err := s.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(context.Background()); err != nil {
				t.Fatalf("Close: %v", err)
			}
			ev := f.events(t)
			if !slices.Contains(ev, "recv "+tc.quit) || ev[len(ev)-1] != "exit "+strings.TrimSpace(tc.quit) {
				t.Errorf("want %q received and a clean exit; events %q", tc.quit, ev)
			}
			if _, err := s.Eval(context.Background(), "k"); !errors.Is(err, ErrClosed) {
				t.Errorf("Eval after Close: %v; want ErrClosed", err)
			}
		})
	}
}

// Requirement: a cdb that ignores the quit command is killed, with its
// whole process tree, after the grace period.
func TestCloseKillsTreeWhenQuitIgnored(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finding the processes reads /proc")
	}
	f := newFake(t, "FAKECDB_IGNORE_QUIT=1")
	// A shell between us and the fake: the fake is a grandchild, which
	// only a tree kill reaches.
	f.cfg.Launcher = append([]string{"sh", "-c", `"$@"; echo unreachable`, "sh"}, f.cfg.Launcher...)
	f.cfg.Grace = 200 * time.Millisecond
	s := NewSession(f.cfg, quiet)
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	token := fakeDir[strings.LastIndex(fakeDir, "/")+1:]
	if pids := wintest.Processes(token); len(pids) < 2 {
		t.Fatalf("want the shell and the fake alive, found %v", pids)
	}
	err := s.Close(context.Background())
	if !errors.Is(err, ErrKilled) {
		t.Fatalf("Close: %v; want ErrKilled", err)
	}
	ev := f.events(t)
	if !slices.Contains(ev, "recv q") || count(ev, "exit") != 0 {
		t.Errorf("want q received and no exit of its own; events %q", ev)
	}
	waitGone(t, token)
}

// waitGone polls until no process matches token. A killed grandchild is
// reaped by init, which sends us nothing to wait on.
func waitGone(t *testing.T, token string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		pids := wintest.Processes(token)
		if len(pids) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("processes still alive after the kill: %v", pids)
		}
	}
}

// A cdb that exits during a command (the user typed q) ends the session;
// the next command opens a new one.
func TestQuitCommandEndsSession(t *testing.T) {
	f := newFake(t)
	// parseSettings allows q for a dump; a Config made by hand refuses it.
	f.cfg.AllowSessionEnd = true
	s := NewSession(f.cfg, quiet)
	t.Cleanup(func() { s.Close(context.Background()) })
	res, err := s.Eval(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Ended, "cdb exited during the command") || !toolResult(ToolName, f.cfg, res).IsError {
		t.Errorf("q: %+v", res)
	}
	if res, err := s.Eval(context.Background(), "k"); err != nil || !strings.Contains(res.Output, "app!main") {
		t.Fatalf("k after q: %+v %v", res, err)
	}
	if ev := f.events(t); count(ev, "start ") != 2 {
		t.Errorf("want a second session; events %q", ev)
	}
}

// A cdb that cannot open its target is reported with its output.
func TestStartFailureIsReported(t *testing.T) {
	f := newFake(t)
	f.cfg.Dump = ""
	f.cfg.Quit = "q"
	f.cfg.Args = []string{"-z"} // the fake refuses a target without a value
	s := NewSession(f.cfg, quiet)
	t.Cleanup(func() { s.Close(context.Background()) })
	err := s.Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exited before its first prompt") || !strings.Contains(err.Error(), "-z needs a value") {
		t.Fatalf("Open: %v", err)
	}
}
