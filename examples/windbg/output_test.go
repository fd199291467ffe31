package main

import (
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// The collector strips prompts and echoes and stops at the marker, however
// cdb interleaves them.
func TestCollector(t *testing.T) {
	const m = "WINDBG_MCP_DONE_x"
	for _, tc := range []struct {
		name, command, stream, want, rest string
	}{
		{"no console echo", "k", "0:000>  # Child-SP\n00 frame\n0:000> " + m + "\n0:000> ", " # Child-SP\n00 frame", "0:000> "},
		{"console echo", "k", "0:000> k\n # Child-SP\n0:000> .echo " + m + "\n" + m + "\n", " # Child-SP", ""},
		{"CRLF and WOW64 prompt", "r", "0:000:x86> eax=1\r\n0:000:x86> " + m + "\r\n", "eax=1", ""},
		{"output without newline", "db", "0:000> last line0:000> " + m + "\n", "last line", ""},
		{"kernel prompt", "k", "0: kd> frame\n0: kd> " + m + "\n", "frame", ""},
		{"the command's own output may equal it later", ".echo k", "0:000> k\n0:000> " + m + "\n", "k", ""},
		{"idle prompts", "k", "0:000> \n0:000> 0:000> frame\n0:000> " + m + "\n", "frame", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCollector(m, tc.command, 1<<20)
			rest := c.feed([]byte(tc.stream))
			if !c.done || c.text() != tc.want || string(rest) != tc.rest {
				t.Errorf("done=%v text=%q rest=%q; want %q, rest %q", c.done, c.text(), rest, tc.want, tc.rest)
			}
		})
	}
}

func TestCollectorCapsOutput(t *testing.T) {
	c := newCollector("M", "x", 10)
	c.feed([]byte("0:000> 12345\n678901234\nabc\nM\n"))
	if c.text() != "12345" || c.dropped != len("678901234\nabc\n") {
		t.Errorf("text %q dropped %d", c.text(), c.dropped)
	}
	res := toolResult(ToolName, Config{MaxOutput: 10}, &Result{Output: c.text(), Dropped: c.dropped})
	if res.IsError {
		t.Error("cut output is not an error")
	}
}

func TestCheckCommand(t *testing.T) {
	var c Config // the zero Config refuses every class
	for _, ok := range []string{"k", "!analyze -v", "dt\tntdll!_PEB", "bp kernel32!CreateFileW; g", "r @$t0 = 1", "dx @$curprocess", "~*k", "|0s", ".formats 1"} {
		if err := c.CheckCommand(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", " ", "k\n", "k\r\nq", "\x02", "k\x00",
		// Refused since the shared policy: the old check let each through.
		"k\xff", ".echo caf\u00e9", "q", ".shell cmd /c calc", ".server tcp:port=5005", ".load c:\\x.dll",
		".logopen c:\\x.bat", ".writemem c:\\x.exe @rsp L100", ".dump /ma c:\\x.dmp", ".sympath \\\\host\\share",
		"as x .shell", "r $.u0 = .shell", ".foreach (t {.echo .shell}) { t calc }", `dx Debugger.Utility.Control.ExecuteCommand(".sh" + "ell calc")`,
		".scriptload c:\\x.js", ".settings load c:\\x.xml"} {
		if err := c.CheckCommand(bad); err == nil || !strings.HasPrefix(err.Error(), "invalid command: ") {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
	// The messages name the flag and the variable.
	if err := c.CheckCommand(".shell x"); err == nil || !strings.Contains(err.Error(), "-allow-host-commands (WINDBG_ALLOW_HOST_COMMANDS=1)") {
		t.Errorf(".shell: %v", err)
	}
	if err := c.CheckCommand("qd"); err == nil || !strings.Contains(err.Error(), "-allow-session-end (WINDBG_ALLOW_SESSION_END=1)") {
		t.Errorf("qd: %v", err)
	}
	c.AllowSessionEnd, c.AllowHostCommands = true, true
	for _, ok := range []string{"q", ".shell x", "as x y", "${x}"} {
		if err := c.CheckCommand(ok); err != nil {
			t.Errorf("%q refused with everything allowed: %v", ok, err)
		}
	}
}

// A command can print without newlines for as long as it runs (.printf in
// a .for loop, a long %ma string): the unfinished line must not grow the
// server's memory past the cap, and the marker after it must still end
// the command.
func TestCollectorBoundsLongLine(t *testing.T) {
	const m = "WINDBG_MCP_DONE_x"
	c := newCollector(m, "x", 1024)
	chunk := []byte(strings.Repeat("A", 32<<10))
	var pending []byte
	total := 0
	for range 2048 { // 64 MiB in cdb's read size
		pending = c.feed(append(pending, chunk...))
		total += len(chunk)
		if len(pending) > 1024+len(chunk)+4096 {
			t.Fatalf("after %d bytes the unfinished line holds %d bytes", total, len(pending))
		}
	}
	// The line ends with the prompt and the marker, split across reads.
	pending = c.feed(append(pending, "0:000> WINDBG_"...))
	rest := c.feed(append(pending, "MCP_DONE_x\n0:000> "...))
	if !c.done || string(rest) != "0:000> " {
		t.Fatalf("the marker after a long line was missed: done=%v rest=%q", c.done, rest)
	}
	if c.text() != "" || c.dropped != total+1 {
		t.Errorf("text %q dropped %d; want none kept and %d dropped", c.text(), c.dropped, total+1)
	}
}

// The target's memory reaches the tool result (.printf "%ma" prints a
// string's bytes as they are), and the host may show the result on a
// terminal: control characters are spelled out, lines and tabs kept.
func TestToolResultSpellsOutControls(t *testing.T) {
	res := toolResult(ToolName, Config{MaxOutput: 1 << 20}, &Result{Output: "a\x1b]0;pwned\x07\tb\x1b[2J\u009bc\x7f\nd\x08"})
	want := `a\x1b]0;pwned\a` + "\t" + `b\x1b[2J\u009bc\x7f` + "\n" + `d\b`
	if got := res.Content[0].(*mcp.TextContent).Text; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
