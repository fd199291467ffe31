package hdc_test

import (
	"strings"
	"testing"

	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// TestRunRefusesEmptyShellCommand: hdc_run refused an interactive
// shell only for "shell" with nothing after it; ["shell", ""] reaches
// hdc as "shell " and starts the interactive shell all the same (the
// fake says so, as hdc does), which waits on input until the timeout.
// Blank text and a pair of quotes, which hdcd trims away, leave no
// command either.
func TestRunRefusesEmptyShellCommand(t *testing.T) {
	r := &countingRunner{}
	c, ctx := serveHDC(t, winexec.Config{Runner: r})
	for _, args := range [][]string{{"shell", ""}, {"shell", " "}, {"shell", "", "\t"}, {"shell", `""`}, {"shell", `" "`}, {"-t", "K1", "shell", ""}} {
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args})
		if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "interactive") {
			t.Errorf("hdc_run %q = %v %q, want refused", args, err, res.TextOf())
		}
	}
	if n := r.count(); n != 0 {
		t.Errorf("hdc ran %d times: %q", n, r.runs)
	}
	for i, args := range [][]string{{"-t", "K1", "shell", "", "ls"}, {"-t", "K1", "shell", `"ls"`}} {
		if res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args}); err != nil || res.IsError || r.count() != i+1 {
			t.Errorf("hdc_run %q = %v %q, want run", args, err, res.TextOf())
		}
	}
}
