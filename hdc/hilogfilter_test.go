package hdc_test

import (
	"strings"
	"testing"

	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// TestHilogFilterLineBreak: grep -F reads a pattern with a line break as
// several patterns, one of them empty for "tag\n", which every line
// contains: the filter that was to keep lines holding the text kept the
// whole log. No line holds a line break, so such a filter is refused.
func TestHilogFilterLineBreak(t *testing.T) {
	r := &countingRunner{}
	c, ctx := serveHDC(t, winexec.Config{Runner: r})
	for _, filter := range []string{"testTag\n", "a\nb", "\n"} {
		res, err := c.CallTool(ctx, hdc.ToolHilog, map[string]any{"filter": filter, "connectKey": "K1"})
		if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "line break") {
			t.Errorf("hdc_hilog filter %q = %v %q, want refused", filter, err, res.TextOf())
		}
	}
	if n := r.count(); n != 0 {
		t.Errorf("hdc ran %d times: %q", n, r.runs)
	}
	// A CR is not a grep separator: kept as text.
	res, err := c.CallTool(ctx, hdc.ToolHilog, map[string]any{"filter": "a\rb", "connectKey": "K1", "dryRun": true})
	if err != nil || res.IsError {
		t.Errorf("hdc_hilog filter with a CR, dryRun = %v %q", err, res.TextOf())
	}
}
