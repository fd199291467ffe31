package wintest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wine is a private wine installation state shared by a test binary.
type Wine struct {
	// Loader is the wine program (wine or wine64).
	Loader string
	// Server is the wineserver program.
	Server string
	// Prefix is the private WINEPREFIX.
	Prefix string
}

// Env returns the variables that select the private prefix and keep wine
// quiet and free of mono/gecko install prompts.
func (w *Wine) Env() []string {
	return []string{
		"WINEPREFIX=" + w.Prefix,
		"WINEDEBUG=-all",
		"WINEDLLOVERRIDES=mscoree,mshtml=",
	}
}

// Launcher returns a command prefix that runs a Windows program in the
// private prefix: env VAR=... wine. env execs wine, so the launcher adds no
// process of its own.
func (w *Wine) Launcher() []string {
	return append(append([]string{"env"}, w.Env()...), w.Loader)
}

// Command returns a command running a Windows program in the prefix.
func (w *Wine) Command(ctx context.Context, exe string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.Loader, append([]string{exe}, args...)...)
	cmd.Env = append(os.Environ(), w.Env()...)
	return cmd
}

var (
	wineOnce sync.Once
	wineVal  *Wine
	wineErr  error
	wineMiss string
	// serverDone is closed when the wineserver NeedWine started exits.
	serverDone chan struct{}
	// serverProc is that wineserver.
	serverProc *os.Process
)

// lookWine finds the wine loader: wine, then wine64 on PATH, then the
// Debian location of wine64 (the "wine" wrapper needs wine32 otherwise).
func lookWine() (loader, server string) {
	for _, n := range []string{"wine", "wine64", "/usr/lib/wine/wine64"} {
		if p, err := exec.LookPath(n); err == nil {
			loader = p
			break
		}
	}
	for _, n := range []string{"wineserver", "wineserver64", "/usr/lib/wine/wineserver64"} {
		if p, err := exec.LookPath(n); err == nil {
			server = p
			break
		}
	}
	return loader, server
}

// NeedWine returns the shared wine state, initialising the prefix on first
// use (wineboot takes several seconds), starting a persistent wineserver
// so later programs start quickly, and installing the bcryptprimitives stub
// Go programs need. Without wine or mingw it calls Missing.
func NeedWine(t testing.TB) *Wine {
	t.Helper()
	wineOnce.Do(func() {
		loader, server := lookWine()
		if loader == "" || server == "" {
			wineMiss = "wine not found: install wine64 (apt-get install wine wine64)"
			return
		}
		cc, err := exec.LookPath(MingwCC)
		if err != nil {
			// Needed for the bcryptprimitives stub without which Go
			// programs do not start under wine 8.
			wineMiss = MingwCC + " not found: install mingw-w64 (apt-get install gcc-mingw-w64-x86-64)"
			return
		}
		work, err := WorkDir()
		if err != nil {
			wineErr = err
			return
		}
		w := &Wine{Loader: loader, Server: server, Prefix: filepath.Join(work, "wineprefix")}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := os.MkdirAll(w.Prefix, 0o755); err != nil {
			wineErr = err
			return
		}
		// A persistent server in the foreground: it stays up between
		// programs (wine would otherwise restart it after 3 s idle) and
		// is our child, reaped when Cleanup kills it.
		srv := exec.Command(server, "-p", "-f")
		srv.Env = append(os.Environ(), w.Env()...)
		if err := srv.Start(); err != nil {
			wineErr = fmt.Errorf("wineserver: %v", err)
			return
		}
		serverDone, serverProc = make(chan struct{}), srv.Process
		go func() {
			_ = srv.Wait()
			close(serverDone)
		}()
		if err := w.boot(ctx, work); err != nil {
			wineErr = err
			w.shutdown() // Cleanup stops only a prefix that came up
			return
		}
		if err := installBcryptStub(cc, work, w.Prefix); err != nil {
			wineErr = err
			w.shutdown()
			return
		}
		wineVal = w
	})
	if wineMiss != "" {
		Missing(t, "%s", wineMiss)
	}
	if wineErr != nil {
		t.Fatal(wineErr)
	}
	return wineVal
}

// bootRetry is what wine says when it found its directory under /tmp in
// a state it repaired, and the command did not run: the packages of one
// go test run set up their prefixes at once, beside the wineserver each
// has just started, and they share that directory.
const bootRetry = "please try running the same command again"

// boot runs wineboot -i in the prefix, again (up to three times in all)
// when wine asks for that.
func (w *Wine) boot(ctx context.Context, work string) error {
	// wineboot leaves services running that inherit its stdio, so its
	// output goes to a file: a pipe would never reach EOF.
	logPath := filepath.Join(work, "wineboot.log")
	for attempt := 1; ; attempt++ {
		logf, err := os.Create(logPath)
		if err != nil {
			return err
		}
		boot := w.Command(ctx, "wineboot", "-i")
		boot.Stdout, boot.Stderr = logf, logf
		err = boot.Run()
		logf.Close()
		if err == nil {
			return nil
		}
		b, _ := os.ReadFile(logPath)
		if attempt < 3 && ctx.Err() == nil && strings.Contains(string(b), bootRetry) {
			continue
		}
		return fmt.Errorf("wineboot -i (attempt %d): %v\n%s", attempt, err, b)
	}
}

// shutdownWine kills the prefix's wineserver and every wine process in it.
func shutdownWine() {
	if wineVal != nil {
		wineVal.shutdown()
	}
}

// shutdown kills w's wineserver and every wine process in its prefix,
// and waits for the server NeedWine started to exit, killing it after
// 30 s. A prefix whose wineboot failed is stopped so too: its server
// outlived the tests, its directory removed.
func (w *Wine) shutdown() {
	cmd := exec.Command(w.Server, "-k")
	cmd.Env = append(os.Environ(), w.Env()...)
	_ = cmd.Run()
	if serverDone == nil {
		return
	}
	select {
	case <-serverDone:
	case <-time.After(30 * time.Second):
		_ = serverProc.Kill()
		<-serverDone
	}
}
