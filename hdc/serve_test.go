package hdc_test

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// serveHDC serves the hdc tools on an executor made from cfg, in memory,
// and connects a client to them; all of it closes with the test, and ctx
// ends 30 s from now.
func serveHDC(t *testing.T, cfg winexec.Config) (*client.Client, context.Context) {
	t.Helper()
	return serveTools(t, cfg, false)
}

// serveBridge is serveHDC with win_exec beside the hdc tools on the one
// executor, as the winbridge server has them.
func serveBridge(t *testing.T, cfg winexec.Config) (*client.Client, context.Context) {
	t.Helper()
	return serveTools(t, cfg, true)
}

func serveTools(t *testing.T, cfg winexec.Config, withExec bool) (*client.Client, context.Context) {
	t.Helper()
	ex, err := winexec.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := mcp.NewServer(&mcp.Implementation{Name: "hdc-test", Version: "1.0.0"}, nil)
	if withExec {
		winexec.AddTools(srv, ex, nil)
	}
	hdc.AddTools(srv, ex, nil)
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := client.Connect(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ctx
}

// windowsOnlyRefusals are hdc_run calls that a Windows hdc must refuse:
// fullwidth "kill" (the ANSI code page's best-fit mapping makes it kill)
// and a network-share path (Windows would authenticate to its host).
var windowsOnlyRefusals = [][]string{
	{"ｋｉｌｌ"},
	{"-t", "K1", "file", "send", `\\attacker.example\share\x`, "/data/local/tmp/x"},
}

// expectWindowsRefusals checks that c's hdc_run refuses
// windowsOnlyRefusals, even as a dry run; exe names the hdc in messages.
func expectWindowsRefusals(ctx context.Context, t *testing.T, c *client.Client, exe string) {
	t.Helper()
	for _, args := range windowsOnlyRefusals {
		res, err := c.CallTool(ctx, hdc.ToolRun, map[string]any{"args": args, "dryRun": true})
		if err != nil || !res.IsError {
			t.Errorf("HDC_EXE %q: hdc_run %q = %v %q; want refused", exe, args, err, res.TextOf())
		}
	}
}
