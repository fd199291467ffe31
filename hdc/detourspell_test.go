package hdc_test

import (
	"testing"

	"github.com/winbridge/winbridge/winexec"
)

// TestWinExecDetourSpellings: other spellings of hdc.exe that Windows or
// a shell would run as hdc, given to win_exec beside the hdc tools with
// the default allowlist: an 8.3 short name, a trailing dot or space
// (Windows strips them), an NTFS stream, a relative or drive-relative
// path, a shell or PowerShell running hdc. None runs: each is reserved,
// not on the allowlist, or not a valid program name.
func TestWinExecDetourSpellings(t *testing.T) {
	r := &countingRunner{}
	c, ctx := serveBridge(t, winexec.Config{Runner: r, Launcher: []string{"wine"}})
	for _, call := range []struct {
		exe  string
		args []string
	}{
		{"HDC~1.EXE", []string{"kill"}},
		{`C:\sdk\toolchains\HDC~1.EXE`, []string{"kill"}},
		{"hdc.exe.", []string{"kill"}},
		{"hdc.exe ", []string{"kill"}},
		{"hdc.exe::$DATA", []string{"kill"}},
		{`C:\sdk\hdc.exe:x`, []string{"kill"}},
		{`toolchains\hdc.exe`, []string{"kill"}},
		{`C:hdc.exe`, []string{"kill"}},
		{`\\?\C:\sdk\hdc.exe`, []string{"kill"}},
		{`\\attacker.example\share\hdc.exe`, []string{"kill"}},
		{"ｈｄｃ.exe", []string{"kill"}},
		{"hdc\u00a0.exe", []string{"kill"}},
		{"cmd.exe", []string{"/c", "hdc", "kill"}},
		{"powershell.exe", []string{"-c", "hdc kill"}},
		{"/home/u/bin/h", []string{"kill"}},
	} {
		res, err := c.CallTool(ctx, winexec.ToolExec, map[string]any{"exe": call.exe, "args": call.args})
		if err != nil || !res.IsError {
			t.Errorf("%s %q %q = %v %q, want refused", winexec.ToolExec, call.exe, call.args, err, res.TextOf())
		}
	}
	if n := r.count(); n != 0 {
		t.Errorf("win_exec ran %d programs: %q", n, r.runs)
	}
}
