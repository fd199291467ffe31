package hdc_test

import (
	"strings"
	"testing"

	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// TestWinExecDetourOtherHdcName: the reservation went by the configured
// program's file name only, so with HDC_EXE=...\hdc_std.exe (the SDK's
// older name) and hdc.exe still on ALLOW_EXE and the search path,
// win_exec hdc.exe kill ran without confirm, and the other way round.
// Every name hdc ships under is reserved with the tools.
func TestWinExecDetourOtherHdcName(t *testing.T) {
	for _, hdcExe := range []string{`C:\sdk\toolchains\hdc_std.exe`, "hdc_std.exe", "hdc.exe", `C:\sdk\hdc.exe`} {
		r := &countingRunner{}
		c, ctx := serveBridge(t, winexec.Config{Runner: r, HDCExe: hdcExe, Launcher: []string{"wine"},
			Policy: winexec.Policy{AllowExe: []string{"hdc.exe", "hdc_std.exe", hdcExe}}})
		for _, exe := range []string{"hdc.exe", "hdc", "HDC_STD.exe", "hdc_std", `C:\other\hdc_std.exe`} {
			res, err := c.CallTool(ctx, winexec.ToolExec, map[string]any{"exe": exe, "args": []string{"kill"}})
			if err != nil || !res.IsError || !strings.Contains(res.TextOf(), hdc.ToolRun) {
				t.Errorf("HDC_EXE %q: %s %q kill = %v %q, want a tool error pointing to %s", hdcExe, winexec.ToolExec, exe, err, res.TextOf(), hdc.ToolRun)
			}
		}
		if n := r.count(); n != 0 {
			t.Errorf("HDC_EXE %q: win_exec ran hdc %d times: %q", hdcExe, n, r.runs)
		}
	}
}
