//go:build unix

package hdc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/hdc"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

// TestSendDryRunIsWhatRuns: without confirm, hdc_file_send runs the path
// of a file inside the local roots with its links resolved, but its
// dryRun returned the argv with the path as given: the "exact argv" was
// not what ran.
func TestSendDryRunIsWhatRuns(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "data.bin"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "data.bin"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	r := &countingRunner{}
	ex, err := winexec.New(winexec.Config{Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := mcp.NewServer(&mcp.Implementation{Name: "sendsame", Version: "1.0.0"}, nil)
	hdc.AddTools(srv, ex, &hdc.Options{Exe: "hdc", LocalRoots: []string{root}})
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(t.Context(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	args := map[string]any{"connectKey": "K1", "local": filepath.Join(root, "link"), "remote": "/data/local/tmp/x"}
	if _, err := c.CallTool(t.Context(), hdc.ToolFileSend, args); err != nil || r.count() != 1 {
		t.Fatalf("send inside the roots: %v, %d runs", err, r.count())
	}
	args["dryRun"] = true
	res, err := c.CallTool(t.Context(), hdc.ToolFileSend, args)
	if err != nil || res.IsError {
		t.Fatalf("dryRun: %v %q", err, res.TextOf())
	}
	var out hdc.Result
	bs, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(bs, &out); err != nil {
		t.Fatal(err)
	}
	if ran := r.runs[0]; !slices.Equal(out.Argv, ran) {
		t.Errorf("dryRun argv %q, but the same call ran %q", out.Argv, ran)
	}
}
