//go:build unix

package winexec

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDirectCodePageHonoursTimeout: the first call of a Direct without a
// CodePage detects it with chcp.com. That probe must not hold the call
// past its timeout (before, it could wait 20 s more, whatever the
// timeout or a cancel said); a probe that finishes later is still kept
// for the calls after it.
func TestDirectCodePageHonoursTimeout(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no fifo:", err)
	}
	// The launcher runs the program (exiting at once) and, for chcp.com,
	// answers only once the test writes to the fifo.
	launcher := filepath.Join(dir, "launcher")
	script := "#!/bin/sh\nif [ \"$1\" = chcp.com ]; then read x < '" + fifo + "'; echo 'Active code page: 936'; fi\nexit 0\n"
	if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	d := &Direct{Launcher: []string{launcher}, WinCwd: dir}

	// A cancelled call returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if res, _ := d.Run(ctx, &Request{Exe: "prog.exe"}); res != nil && res.CodePage != 0 {
		t.Errorf("cancelled call: code page %d before the probe answered", res.CodePage)
	}
	// A call with a timeout returns within it, the probe still waiting.
	res, err := d.Run(context.Background(), &Request{Exe: "prog.exe", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the calls took %v: the code-page probe held them past their timeout", el)
	}
	if res.CodePage != 0 {
		t.Errorf("code page %d before the probe answered", res.CodePage)
	}

	// Let the probe answer: a later call gets its result.
	opened := make(chan *os.File, 1)
	go func() {
		// Blocks until the probe opens the fifo to read: it is waiting.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- w
	}()
	var w *os.File
	select {
	case w = <-opened:
	case <-time.After(30 * time.Second):
		t.Fatal("the code-page probe is no longer waiting to be answered")
	}
	if w == nil {
		t.FailNow()
	}
	if _, err := w.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	res, err = d.Run(context.Background(), &Request{Exe: "prog.exe", Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.CodePage != 936 {
		t.Errorf("code page %d after the probe answered, want 936", res.CodePage)
	}
}
