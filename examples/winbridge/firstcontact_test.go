package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/cli/clitest"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// Started by hand on a terminal, the server says what it is on stderr;
// started by a client (a pipe), it says nothing.
func TestTerminalNotice(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test pty is Linux's")
	}
	bin := build(t)
	ptmx, tty := clitest.OpenPTY(t)
	cmd := exec.Command(bin, "-backend", "local")
	cmd.Stdin = tty
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has it
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if !strings.Contains(l, "this is an MCP server") || !strings.Contains(l, "stdin and stdout") {
			t.Errorf("first stderr line %q", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notice on a terminal")
	}
	ptmx.Close() // hang up: the server's stdin ends
	done := make(chan error, 1)
	go func() {
		for range lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not end when its terminal hung up")
	}

	// On a pipe: no notice (the stdio test below checks the same for a
	// real session).
	cmd = exec.Command(bin, "-backend", "local")
	cmd.Stdin = strings.NewReader("")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if strings.Contains(errb.String(), "MCP server") {
		t.Errorf("notice on a pipe: %q", errb.String())
	}
}

func TestCheckReportsEveryProblem(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"-check", "-backend", "powershell", "-ps-exe", "no-such-powershell.exe", "-hdc-exe", "no-such-hdc", "-launcher", "no-such-launcher"}, &out, &errOut)
	if code != 1 {
		t.Errorf("status %d", code)
	}
	for _, want := range []string{"no-such-powershell.exe", "no-such-hdc", "no-such-launcher"} {
		found := false
		for _, l := range strings.Split(out.String(), "\n") {
			found = found || (strings.HasPrefix(l, "problem:") && strings.Contains(l, want))
		}
		if !found {
			t.Errorf("no problem line names %s:\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "-ps-exe (or WIN_PS_EXE)") || !strings.Contains(out.String(), "-hdc-exe (or HDC_EXE)") {
		t.Errorf("problems do not name both the flag and the variable:\n%s", out.String())
	}

	// Only win_exec wanted: a missing hdc is no problem.
	out.Reset()
	if code := run([]string{"-check", "-backend", "local", "-hdc=false", "-hdc-exe", "no-such-hdc"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "ok: no problem found") {
		t.Errorf("-hdc=false: %d\n%s", code, out.String())
	}
	out.Reset()
	t.Setenv("WINBRIDGE_HDC", "0")
	if code := run([]string{"-check", "-backend", "local", "-hdc-exe", "no-such-hdc"}, &out, &errOut); code != 0 {
		t.Errorf("WINBRIDGE_HDC=0: %d\n%s", code, out.String())
	}
}

func TestSettingErrorsNameFlagAndVariable(t *testing.T) {
	var out, errOut bytes.Buffer
	t.Setenv("WINBRIDGE_BACKEND", "bogus")
	t.Setenv("WIN_CODEPAGE", "klingon")
	if code := run(nil, &out, &errOut); code != 2 {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{"WINBRIDGE_BACKEND", "-backend", "WIN_CODEPAGE", "-codepage"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("%q does not name %s", errOut.String(), want)
		}
	}
	// A flag wins over a bad variable: only the other problem is left.
	errOut.Reset()
	if code := run([]string{"-backend", "local"}, &out, &errOut); code != 2 || strings.Contains(errOut.String(), "WINBRIDGE_BACKEND") || !strings.Contains(errOut.String(), "WIN_CODEPAGE") {
		t.Errorf("-backend over a bad WINBRIDGE_BACKEND: %q", errOut.String())
	}
	errOut.Reset()
	os.Unsetenv("WINBRIDGE_BACKEND")
	os.Unsetenv("WIN_CODEPAGE")
	if code := run([]string{"-log-level", "loud", "-check"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "WINBRIDGE_LOG_LEVEL") {
		t.Errorf("-log-level: %q", errOut.String())
	}
}

func TestBadFlagOnceAndVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-nope"}, &out, &errOut); code != 2 || strings.Count(errOut.String(), "-nope") != 1 || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("bad flag: %d %q", code, errOut.String())
	}
}

// A refused program names both the variable and the flag that allow it,
// once, in the tool error the model reads.
func TestRefusalNamesFlagAndVariable(t *testing.T) {
	s, err := parseSettings([]string{"-backend", "local", "-allow-exe", "printf"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.cfg
	cfg.Logger = slog.New(slog.DiscardHandler)
	ex, err := winexec.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	a, b := transport.Pipe(nil)
	newServer(s, ex, slog.New(slog.DiscardHandler)).Connect(b)
	c, err := client.Connect(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "win_exec", map[string]any{"exe": "rm", "args": []string{"-rf", "x"}})
	if err != nil || !res.IsError {
		t.Fatalf("%v %+v: want a tool error", err, res)
	}
	text := res.TextOf()
	if !strings.Contains(text, "ALLOW_EXE") || !strings.Contains(text, "-allow-exe") || strings.Count(text, "ALLOW_EXE") != 1 {
		t.Errorf("tool error %q: want ALLOW_EXE and -allow-exe, each once", text)
	}

	for setting, flag := range map[string]string{"ALLOW_EXE": "-allow-exe", "ALLOW_ENV": "-allow-env"} {
		msg := (&winexec.NotAllowedError{Setting: setting, Value: "x"}).Error()
		if !strings.Contains(msg, setting) || !strings.Contains(msg, flag) {
			t.Errorf("%q does not name %s and %s", msg, setting, flag)
		}
	}
}

// Every variable the library refuses names the flag that overrides it, and
// that flag, given, wins over it: the pairs are read from the flags' own
// help text, so a new setting cannot be left out (MAX_TIMEOUT_MS and
// WINBRIDGE_QUEUE_TIMEOUT_MS once were).
func TestEverySettingErrorNamesItsFlag(t *testing.T) {
	junk := func(string) string { return "bogus" }
	_, libErr := winexec.ConfigFromEnvFunc(junk)
	var settings []string
	for _, e := range libErr.(interface{ Unwrap() []error }).Unwrap() {
		var ce *winexec.ConfigError
		if errors.As(e, &ce) {
			settings = append(settings, ce.Setting)
		}
	}
	if len(settings) < 5 {
		t.Fatalf("only %d settings refused junk: %v", len(settings), settings)
	}
	_, err := parseSettings(nil, junk, io.Discard)
	if err == nil {
		t.Fatal("junk settings accepted")
	}
	for _, s := range settings {
		if !strings.Contains(err.Error(), "flag overrides "+s) {
			t.Errorf("%s: the error names no flag: %v", s, err)
		}
	}
	for _, pair := range [][3]string{{"MAX_TIMEOUT_MS", "-max-timeout", "5m"}, {"WINBRIDGE_QUEUE_TIMEOUT_MS", "-queue-timeout", "5s"}} {
		only := func(k string) string {
			if k == pair[0] {
				return "abc"
			}
			return ""
		}
		if _, err := parseSettings([]string{"-backend", "local", pair[1], pair[2]}, only, io.Discard); err != nil {
			t.Errorf("%s over a bad %s: %v", pair[1], pair[0], err)
		}
	}
}
