package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/dbgcmd"
)

// Commands the policy refuses are a JSON-RPC invalid-params error that
// names the class and the flag that allows it, and nothing reaches cdb;
// the tool description tells the model what is refused.
func TestRefusedCommandRunsNothing(t *testing.T) {
	f := newFake(t)
	h := startServer(t, f.cfg)
	c := connect(t, h.url)
	before := f.events(t)
	for cmd, want := range map[string]string{
		"q":                                "-allow-session-end (WINDBG_ALLOW_SESSION_END=1)",
		".shell cmd /c calc":               "-allow-host-commands (WINDBG_ALLOW_HOST_COMMANDS=1)",
		".logopen c:\\x.bat":               "reaches past the debugging session to the host or network",
		"as x .shell":                      "builds or hides a command at run time",
		"k; r $.u0 = .she; $u0ll calc":     "fixed-name alias",
		".foreach (t {.echo .kill}) { t }": "builds or hides a command",
		".sympath \\\\host\\share":         ".sympath changes where symbols are searched",
		"k \u00a7":                         "non-ASCII",
		`dx Debugger.Utility.FileSystem`:   "builds or hides a command",
		"~~[0x1d8]eq":                      "q ends the debugging session",
		".echo fine; .dump /ma c:\\x.dmp":  ".dump writes a dump file on this machine",
	} {
		resp := c.call("tools/call", map[string]any{"name": ToolName, "arguments": map[string]any{"command": cmd}})
		if resp.Error == nil || resp.Error.Code != -32602 || !strings.Contains(resp.Error.Message, want) {
			t.Errorf("%q: want -32602 with %q, got result %s error %+v", cmd, want, resp.Result, resp.Error)
		}
	}
	if after := f.events(t); !slices.Equal(before, after) {
		t.Fatalf("the fake saw new events after refused calls:\nbefore %q\nafter  %q", before, after)
	}
	// Session.Eval refuses too, for callers other than the tool.
	var ce *CommandError
	if _, err := h.sess.Eval(context.Background(), ".shell x"); !errors.As(err, &ce) || ce.Class != dbgcmd.Host {
		t.Errorf("Eval(.shell): %v", err)
	}
	list := c.call("tools/list", nil)
	if !strings.Contains(string(list.Result), "Refused before they run") {
		t.Errorf("the tool description does not say what is refused: %s", list.Result)
	}
}

// The session-end default depends on the target; the flag and the
// variable override it either way.
func TestPolicySettings(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		env       map[string]string
		end, host bool
	}{
		{args: []string{"-dump", "x.dmp"}, end: true},
		{args: []string{"-pid", "4"}},
		{args: []string{"-remote", "tcp:server=h,port=1"}},
		{args: []string{"-dump", "x.dmp"}, env: map[string]string{"WINDBG_ALLOW_SESSION_END": "0"}},
		{args: []string{"-dump", "x.dmp", "-allow-session-end=false"}},
		{args: []string{"-pid", "4", "-allow-session-end"}, end: true},
		{args: []string{"-pid", "4"}, env: map[string]string{"WINDBG_ALLOW_SESSION_END": "1"}, end: true},
		{args: []string{"-pid", "4", "-allow-session-end=0"}, env: map[string]string{"WINDBG_ALLOW_SESSION_END": "1"}},
		{args: []string{"-pid", "4", "-allow-host-commands"}, host: true},
		{args: []string{"-pid", "4"}, env: map[string]string{"WINDBG_ALLOW_HOST_COMMANDS": "1"}, host: true},
	} {
		s, err := parseSettings(tc.args, func(k string) string { return tc.env[k] }, &bytes.Buffer{})
		if err != nil {
			t.Errorf("%q %v: %v", tc.args, tc.env, err)
			continue
		}
		if s.cfg.AllowSessionEnd != tc.end || s.cfg.AllowHostCommands != tc.host {
			t.Errorf("%q %v: session end %v, host %v; want %v, %v", tc.args, tc.env, s.cfg.AllowSessionEnd, s.cfg.AllowHostCommands, tc.end, tc.host)
		}
	}
	if _, err := parseSettings([]string{"-pid", "4"}, func(k string) string {
		if k == "WINDBG_ALLOW_SESSION_END" {
			return "yes please"
		}
		return ""
	}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "WINDBG_ALLOW_SESSION_END") {
		t.Errorf("a bad WINDBG_ALLOW_SESSION_END: %v", err)
	}
	var help bytes.Buffer
	parseSettings([]string{"-help"}, func(string) string { return "" }, &help)
	for _, want := range []string{"-allow-session-end", "WINDBG_ALLOW_SESSION_END", "-allow-host-commands", "WINDBG_ALLOW_HOST_COMMANDS", "-extension-modules", "WINDBG_EXTENSION_MODULES"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("-help lacks %s", want)
		}
	}
}

// !module.command loads module.dll from the extension path (every PATH
// directory) unless it is loaded; a module that is not the debugger's own
// passes only when -extension-modules or WINDBG_EXTENSION_MODULES names
// it, and the refusal names the setting. A path or a .dll name there is a
// settings error.
func TestExtensionModulesSetting(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := parseSettings([]string{"-dump", "x.dmp"}, env(nil), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cfg.CheckCommand("!mex.us"); err == nil || !strings.Contains(err.Error(), "-extension-modules (WINDBG_EXTENSION_MODULES)") {
		t.Errorf("!mex.us without the setting: %v", err)
	}
	if err := s.cfg.CheckCommand("!ext.heap -s"); err != nil {
		t.Errorf("!ext.heap: %v", err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
	}{
		{args: []string{"-dump", "x.dmp", "-extension-modules", "mex, sosex"}},
		{args: []string{"-dump", "x.dmp"}, env: map[string]string{"WINDBG_EXTENSION_MODULES": "MEX,sosex"}},
	} {
		s, err := parseSettings(tc.args, env(tc.env), &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%q %v: %v", tc.args, tc.env, err)
		}
		for _, c := range []string{"!mex.us", "!sosex.bpsc x"} {
			if err := s.cfg.CheckCommand(c); err != nil {
				t.Errorf("%q %v: %s: %v", tc.args, tc.env, c, err)
			}
		}
		if err := s.cfg.CheckCommand("!evil.x"); err == nil {
			t.Errorf("%q %v: !evil.x accepted", tc.args, tc.env)
		}
	}
	for _, bad := range []string{`c:\x\evil`, "evil.dll", "a b", "../x"} {
		if _, err := parseSettings([]string{"-dump", "x.dmp", "-extension-modules", bad}, env(nil), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "-extension-modules") {
			t.Errorf("-extension-modules %q: %v", bad, err)
		}
	}
}
