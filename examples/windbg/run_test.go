package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The command end to end: settings from the environment and flags, a
// call over HTTP, and shutdown (the context ends, as on SIGINT) closing
// cdb with q.
func TestRunServesAndQuitsOnShutdown(t *testing.T) {
	f := newFake(t)
	env := map[string]string{
		"WINDBG_CDB":      fakeExe,
		"WINDBG_LAUNCHER": strings.Join(f.cfg.Launcher, " "),
		"WINDBG_DUMP":     `C:\dumps\from-env.dmp`,
		"WINDBG_TIMEOUT":  "20s",
	}
	url, stderr, stop := runMain(t, []string{"-http", "127.0.0.1:0", "-dotted-names", "-cdb-args", "-lines"}, env)
	c := connect(t, url)
	resp := c.call("tools/call", map[string]any{"name": "windbg.eval", "arguments": map[string]any{"command": "k"}})
	if resp.Error != nil || !strings.Contains(string(resp.Result), "app!main+0x42") {
		t.Fatalf("windbg.eval k: %s %+v", resp.Result, resp.Error)
	}
	stderr.waitLine(t, "the echo of the call", func(l string) bool { return strings.Contains(l, "rpc=tools/call") })
	if code := stop(); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
	}
	ev := f.events(t)
	if ev[0] != `start -lines -z C:\dumps\from-env.dmp` || !slices.Contains(ev, "recv k") || ev[len(ev)-1] != "exit q" {
		t.Errorf("events %q; want the env's dump, the flag's options, k, and a clean q", ev)
	}
}

// -help lists every setting with its environment variable; bad settings
// exit 2 with the reason.
func TestHelpAndBadSettings(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-help"}, func(string) string { return "" }, &out); code != 0 {
		t.Fatalf("-help: exit %d", code)
	}
	for _, want := range []string{"WINDBG_CDB", "WINDBG_LAUNCHER", "WINDBG_DUMP", "WINDBG_PID", "WINDBG_REMOTE", "WINDBG_TIMEOUT", "WINDBG_GRACE", "WINDBG_HTTP", "127.0.0.1:8790", "WINDBG_DOTTED_NAMES"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-help lacks %s:\n%s", want, out.String())
		}
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "exactly one target"},
		{[]string{"-dump", "a.dmp", "-pid", "12"}, nil, "exactly one target"},
		{[]string{"-dump", "a.dmp"}, map[string]string{"WINDBG_TIMEOUT": "soon"}, "WINDBG_TIMEOUT"},
		{[]string{"-dump", "a.dmp", "-quit", "q\nq"}, nil, "one line"},
		{[]string{"-dump", "a.dmp", "stray"}, nil, "unexpected arguments"},
	} {
		out.Reset()
		code := run(context.Background(), tc.args, func(k string) string { return tc.env[k] }, &out)
		if code != 2 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q %v: exit %d, %q; want 2 and %q", tc.args, tc.env, code, out.String(), tc.want)
		}
	}
}

// A cdb that cannot start makes the command fail at once, saying why.
func TestRunReportsMissingCDB(t *testing.T) {
	var out bytes.Buffer
	code := run(context.Background(), []string{"-dump", "a.dmp", "-cdb", "/nonexistent/cdb.exe", "-http", "127.0.0.1:0"}, func(string) string { return "" }, &out)
	if code != 1 || !strings.Contains(out.String(), "opening the cdb session") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

func TestConfigArgvAndQuit(t *testing.T) {
	c := Config{CDB: "/opt/cdb.exe", Launcher: []string{"wine"}, Args: []string{"-y", "srv"}, PID: 42}
	argv, err := c.Argv()
	// -pd: a cdb killed at a timeout (or ended by q) detaches from the
	// process instead of ending it.
	if err != nil || !slices.Equal(argv, []string{"wine", "/opt/cdb.exe", "-y", "srv", "-pd", "-p", "42"}) {
		t.Errorf("Argv: %q %v", argv, err)
	}
	if c.QuitCommand() != "qd" {
		t.Errorf("quit for -p: %q", c.QuitCommand())
	}
	c.Quit = ".detach; q"
	if c.QuitCommand() != ".detach; q" {
		t.Errorf("-quit is not honoured: %q", c.QuitCommand())
	}
	s, err := parseSettings([]string{"-remote", "tcp:server=h,port=1", "-quit", "ctrl-b"}, func(string) string { return "" }, &bytes.Buffer{})
	if err != nil || s.cfg.QuitCommand() != ctrlB {
		t.Errorf("-quit ctrl-b: %v %q", err, s.cfg.QuitCommand())
	}
}

// What cdb printed before it failed reaches the operator's terminal; a
// hostile dump (its comment, a module name) must not drive that terminal
// with escape sequences.
func TestRunEscapesCDBOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a shell script as cdb")
	}
	cdb := filepath.Join(t.TempDir(), "cdb")
	script := "#!/bin/sh\nprintf 'Comment: \\033]0;pwned\\007\\033[2J\\302\\233 end\\n'\nexit 3\n"
	if err := os.WriteFile(cdb, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run(context.Background(), []string{"-dump", "a.dmp", "-cdb", cdb, "-http", "127.0.0.1:0"}, func(string) string { return "" }, &out)
	got := out.String()
	if code != 1 || !strings.Contains(got, "Comment: ") || !strings.Contains(got, " end") {
		t.Fatalf("exit %d: %q", code, got)
	}
	if strings.ContainsAny(got, "\x1b\x07\u009b") {
		t.Errorf("control characters reached the terminal: %q", got)
	}
}
