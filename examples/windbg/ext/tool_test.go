package main

import (
	"testing"

	mcpapi "github.com/winbridge/winbridge/mcp"
)

// The target's memory reaches the tool result (.printf "%ma" prints a
// string's bytes as they are), and the host may show the result on a
// terminal: control characters are spelled out, lines and tabs kept, and
// the engine's CRLF read as a newline.
func TestToolResultSpellsOutControls(t *testing.T) {
	res := toolResult("windbg_eval", &Config{MaxOutput: 1 << 20}, &evalResult{Output: "a\x1b]0;pwned\x07\tb\x1b[2J\u009bc\x7f\r\nd\x08"})
	want := `a\x1b]0;pwned\a` + "\t" + `b\x1b[2J\u009bc\x7f` + "\n" + `d\b`
	if got := res.Content[0].(*mcpapi.TextContent).Text; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
