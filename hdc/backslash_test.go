//go:build unix

package hdc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// TestSendBackslashNameOutsideRoots: a Linux file name may hold a
// backslash, which a Windows hdc reads as a separator. A link inside a
// root to a file inside it literally named `..\secret` resolves to a path
// inside the root; were hdc.exe given `...\root\..\secret`, Windows
// would open the file next to the root, outside the local roots, without
// confirm. The resolved path is converted as any local path is, and a
// path holding a backslash reads as a (relative) Windows one: refused.
func TestSendBackslashNameOutsideRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(base, "secret"), filepath.Join(root, `..\secret`)} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, `..\secret`), filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	r := &countingRunner{}
	ex, err := winexec.New(winexec.Config{Runner: r, Launcher: []string{"wine"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := mcp.NewServer(&mcp.Implementation{Name: "backslash", Version: "1.0.0"}, nil)
	hdc.AddTools(srv, ex, &hdc.Options{
		LocalRoots: []string{root},
		LocalPath:  func(p string) (string, error) { return `Z:` + strings.ReplaceAll(p, "/", `\`), nil },
	})
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(t.Context(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := c.CallTool(t.Context(), hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": filepath.Join(root, "l"), "remote": "/data/local/tmp/x"})
	if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "relative Windows path") {
		t.Errorf("hdc_file_send of a link to %q = %v %q, want refused", `..\secret`, err, res.TextOf())
	}
	if n := r.count(); n != 0 {
		t.Errorf("hdc ran: %q", r.runs)
	}
	// A plain file in the root still goes without confirm.
	if err := os.WriteFile(filepath.Join(root, "ok.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err = c.CallTool(t.Context(), hdc.ToolFileSend, map[string]any{"connectKey": "K1", "local": filepath.Join(root, "ok.txt"), "remote": "/data/local/tmp/x"})
	if err != nil || res.IsError || r.count() != 1 {
		t.Errorf("hdc_file_send of a file in the root = %v %q, %d runs", err, res.TextOf(), r.count())
	}
}
