//go:build unix

package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/wintest"
)

// winPath is how wine names a Linux path (drive Z: is the root).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// The fake cdb built for Windows and run under wine through a launcher,
// the way cdb.exe runs through WSL interop: a command, a timeout that ends
// in a tree kill, and a clean q.
func TestWineSession(t *testing.T) {
	w := wintest.NeedWine(t)
	exe := wintest.GoWindowsExe(t, "testdata/fakecdb")
	logPath := filepath.Join(t.TempDir(), "fakecdb.log")
	f := &fake{log: logPath, cfg: Config{
		CDB:          exe,
		Launcher:     append([]string{"env", "FAKECDB_LOG=" + winPath(logPath)}, w.Launcher()[1:]...),
		Dump:         `C:\dumps\app.dmp`,
		Timeout:      10 * time.Second,
		StartTimeout: 60 * time.Second,
		Grace:        5 * time.Second,
		MaxOutput:    1 << 20,
	}}
	s := NewSession(f.cfg, quiet)
	ctx := context.Background()
	res, err := s.Eval(ctx, "k")
	if err != nil || res.TimedOut || !strings.Contains(res.Output, "app!main+0x42") || strings.Contains(res.Output, "0:000>") {
		t.Fatalf("k under wine: %+v %v", res, err)
	}
	s.cfg.Timeout, s.cfg.Grace = time.Second, time.Second
	res, err = s.Eval(ctx, "hang")
	if err != nil || !res.TimedOut || !strings.Contains(res.Output, "hanging: this command never finishes") {
		t.Fatalf("hang under wine: %+v %v", res, err)
	}
	s.cfg.Timeout, s.cfg.Grace = 10*time.Second, 5*time.Second
	if res, err := s.Eval(ctx, "r"); err != nil || !strings.Contains(res.Output, "rip=") {
		t.Fatalf("r after the timeout: %+v %v", res, err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ev := f.events(t)
	if !slices.Contains(ev, "recv k") || !slices.Contains(ev, "recv r") || ev[len(ev)-1] != "exit q" {
		t.Errorf("events %q", ev)
	}
	waitGone(t, filepath.Base(filepath.Dir(exe)))
}
