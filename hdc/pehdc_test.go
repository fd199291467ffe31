package hdc_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// TestWindowsHdcByLinuxName: under WSL, the direct and local backends run
// a Windows program named by a Linux path or a bare name just as well
// (interop runs any file that starts with "MZ"): HDC_EXE=/home/u/bin/hdc,
// a link to hdc.exe, is hdc.exe reading the ANSI code page and opening
// network shares. Its name says nothing, so the tools judged it a native
// hdc and let "ｋｉｌｌ" (kill, after best-fit mapping) and a share path
// through without confirm. The file's own first bytes decide now.
func TestWindowsHdcByLinuxName(t *testing.T) {
	dir := t.TempDir()
	pe := filepath.Join(dir, "hdc")
	if err := os.WriteFile(pe, []byte("MZ\x90\x00not really a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hdc-link")
	if err := os.Symlink(pe, link); err != nil {
		t.Fatal(err)
	}
	for _, exe := range []string{pe, link} {
		c, ctx := serveHDC(t, winexec.Config{HDCExe: exe, Backend: winexec.BackendDirect, Policy: winexec.Policy{AllowExe: []string{exe}}})
		expectWindowsRefusals(ctx, t, c, exe)
	}
	// A native hdc (an ELF file, a script) is still judged native: its
	// paths stay Linux paths.
	native := filepath.Join(dir, "hdc-native")
	if err := os.WriteFile(native, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ex, err := winexec.New(winexec.Config{HDCExe: native, Backend: winexec.BackendLocal, Policy: winexec.Policy{AllowExe: []string{native}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "native", Version: "1.0.0"}, nil)
	hdc.AddTools(srv, ex, nil)
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, hdc.ToolFileSend, map[string]any{"local": "/tmp/x", "remote": "/data/local/tmp/x", "connectKey": "K1", "dryRun": true})
	if err != nil || res.IsError {
		t.Fatalf("native hdc file send: %v %q", err, res.TextOf())
	}
	if got := res.TextOf(); !strings.Contains(got, `"/tmp/x"`) {
		t.Errorf("native hdc got the local path as %q, want /tmp/x", got)
	}
}
