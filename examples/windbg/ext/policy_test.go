package main

import (
	"strings"
	"testing"
)

func TestCheckCommand(t *testing.T) {
	ok := []string{
		"k", "lm", "r", "!analyze -v", "dv", "k; r", "bp app!main", ".echo hello", "~*k", "~0s", "dt app!Foo",
		"db @rsp L40", "!mcpfoo", "\tk", "dx @$curprocess", `bp app!main ".echo hit; g"`,
	}
	for _, c := range ok {
		if err := CheckCommand(c, Policy{}); err != nil {
			t.Errorf("%q refused: %v", c, err)
		}
	}
	refused := []string{
		"", " ", "\t", "k\nr", "k\rr", "k\x00", "k\x02",
		"q", "Q", "qq", "qd", " q ", "k;q", "k ;q", "k; qd", ".kill", ".KILL", ".detach", ".abandon",
		".restart", ".reboot", ".crash", ".unload ext", ".unloadall", ".load c:\\x.dll", ".endsrv 1",
		"~*e q", "~0eq", "~*e.detach", "|0e q", ".block { q }", ".if (1) { qd }", "j 1 q", "j (1) 'q'; 'k'",
		`bp app!main "qd"`, `bp app!main "k;g;q"`, ".foreach (x {k}) { .kill }", "z(1) q",
		"$$<c:\\script.txt", "$$>a<c:\\s.txt", "$><c:\\s.txt", "${alias}", "!mcp stop", "!MCP", "!windbgext.mcp stop",
		".shell dir", ".SHELL -ci \"k\" findstr x", "bp x \".shell calc\"", ".server tcp:port=5005", "~*e .shell x",
		"k\xff", "k\uff1bq", "k \uff02q\uff02", "x\u3000q", ".echo caf\u00e9",
		// Found since: the old word split missed these.
		".loadby sos clr", "~~[0x1d8]eq", "as x .she", "r $.u0 = .sh", "$u0ll calc", ".logopen c:\\x.bat",
		".foreach (t {.echo .sh}) { t calc }", `dx Debugger.Utility.Control.ExecuteCommand(".sh" + "ell calc")`,
		".scriptload c:\\x.js", ".sympath \\\\evil\\share", ". kill",
	}
	for _, c := range refused {
		if err := CheckCommand(c, Policy{}); err == nil {
			t.Errorf("%q accepted", c)
		}
	}
	// The option lets session-ending commands through, never an empty or
	// multi-line one.
	end := Policy{AllowSessionEnd: true}
	if err := CheckCommand("q", end); err != nil {
		t.Errorf("q with AllowSessionEnd: %v", err)
	}
	if err := CheckCommand(".shell dir", end); err == nil {
		t.Error(".shell accepted with AllowSessionEnd only")
	}
	host := Policy{AllowHostCommands: true}
	if err := CheckCommand(".shell dir", host); err != nil {
		t.Errorf(".shell with AllowHostCommands: %v", err)
	}
	if err := CheckCommand("~*e q", host); err == nil {
		t.Error("q accepted with AllowHostCommands only")
	}
	for _, c := range []string{"", "k\nq", "!mcp stop", "k; !windbgext.mcp", "k\uff1bq"} {
		if err := CheckCommand(c, Policy{AllowSessionEnd: true, AllowHostCommands: true}); err == nil {
			t.Errorf("%q accepted with everything allowed", c)
		}
	}
}

// An extension module that is not the debugger's own is refused unless
// WINDBG_MCP_EXTENSION_MODULES names it, and the refusal says so.
func TestCheckCommandExtensionModules(t *testing.T) {
	if err := CheckCommand("!mex.us", Policy{}); err == nil || !strings.Contains(err.Error(), "WINDBG_MCP_EXTENSION_MODULES") {
		t.Errorf("!mex.us: %v", err)
	}
	if err := CheckCommand("!mex.us", Policy{ExtensionModules: []string{"mex"}}); err != nil {
		t.Errorf("!mex.us with mex named: %v", err)
	}
	if err := CheckCommand("!sos.dumpheap -stat", Policy{}); err != nil {
		t.Errorf("!sos.dumpheap: %v", err)
	}
}

// The refusal names the setting that allows the class.
func TestCheckCommandNamesTheOption(t *testing.T) {
	for cmd, want := range map[string]string{
		"q":      "WINDBG_MCP_ALLOW_SESSION_END=1",
		".shell": "WINDBG_MCP_ALLOW_HOST_COMMANDS=1",
		"${x}":   "WINDBG_MCP_ALLOW_SESSION_END=1 is set and WINDBG_MCP_ALLOW_HOST_COMMANDS=1",
		"!mcp":   "run it in the debugger yourself",
	} {
		if err := CheckCommand(cmd, Policy{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", cmd, err, want)
		}
	}
}

// A refused word anywhere a statement can start is refused, whatever
// surrounds it. The words are those the extension refused before the
// shared policy (internal/dbgcmd, which has its own fuzz target), and
// !mcp.
func FuzzCheckCommand(f *testing.F) {
	for _, s := range []string{"k", "~*e", "bp x \"", ".block {", "j 1 ", "k;", "|1e", "(", "'"} {
		f.Add(s, "", uint8(0))
	}
	words := []string{"q", "qq", "qd", ".kill", ".detach", ".abandon", ".restart", ".reboot", ".crash", ".unload",
		".unloadall", ".load", ".endsrv", ".endpsrv", ".opendump", ".attach", ".shell", ".create", ".server", "!mcp"}
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8) {
		w := words[int(which)%len(words)]
		for _, sep := range []string{";", "{", "\"", "'", "(", "; ~*e"} {
			cmd := prefix + sep + strings.ToUpper(w[:1]) + w[1:] + " " + suffix
			if CheckCommand(cmd, Policy{}) == nil {
				t.Fatalf("%q accepted", cmd)
			}
		}
		_ = CheckCommand(prefix+suffix, Policy{}) // must not panic
	})
}
