package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/internal/peexports"
	"github.com/winbridge/winbridge/internal/wintest"
)

// The extension DLL is built once per test binary, and cached across runs
// by the hash of the module's sources (and the Go and mingw versions), so
// that CI pays for the cgo link only when something changed. The export
// check runs on every DLL handed out: a DLL that fails it fails the test.
var (
	dllOnce sync.Once
	dllPath string
	dllErr  error
)

// extDLL returns the path of the extension DLL, built with
// go build -buildmode=c-shared for windows/amd64 with the mingw compiler.
func extDLL(t testing.TB) string {
	t.Helper()
	cc, err := exec.LookPath(wintest.MingwCC)
	if err != nil {
		wintest.Missing(t, "%s not found: install mingw-w64 (apt-get install gcc-mingw-w64-x86-64)", wintest.MingwCC)
	}
	root := peertest.RepoRoot(t)
	dllOnce.Do(func() { dllPath, dllErr = buildDLL(root, cc) })
	if dllErr != nil {
		t.Fatal(dllErr)
	}
	if err := peexports.Check(dllPath, peexports.WinDbgExtension); err != nil {
		t.Fatalf("export check: %v", err)
	}
	return dllPath
}

func buildDLL(root, cc string) (string, error) {
	key, err := sourceKey(root, cc)
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		if base, err = wintest.WorkDir(); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(base, "winbridge-test", "windbgext")
	out := filepath.Join(dir, key+".dll")
	if _, err := os.Stat(out); err == nil {
		now := time.Now()
		os.Chtimes(out, now, now) // recently used: kept by pruneCache
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	built := filepath.Join(tmp, "windbgext.dll")
	cmd := exec.Command("go", "build", "-trimpath", "-buildmode=c-shared", "-o", built, "./examples/windbg/ext")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC="+cc)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -buildmode=c-shared ./examples/windbg/ext: %v\n%s", err, b)
	}
	// Rename is atomic: concurrent test binaries see a whole DLL or none.
	if err := os.Rename(built, out); err != nil {
		return "", err
	}
	pruneCache(dir, keepDLLs)
	return out, nil
}

// keepDLLs is how many built DLLs the cache keeps (about 15 MB each).
const keepDLLs = 4

// pruneCache removes all but the keep most recently built DLLs in dir.
func pruneCache(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type built struct {
		path string
		mod  time.Time
	}
	var dlls []built
	for _, e := range ents {
		if info, err := e.Info(); err == nil && !e.IsDir() && strings.HasSuffix(e.Name(), ".dll") {
			dlls = append(dlls, built{filepath.Join(dir, e.Name()), info.ModTime()})
		}
	}
	slices.SortFunc(dlls, func(a, b built) int { return b.mod.Compare(a.mod) })
	for _, d := range dlls[min(keep, len(dlls)):] {
		os.Remove(d.path)
	}
}

// sourceKey hashes every source file of the module (not tests, not
// testdata) with the Go and compiler versions: any change that could
// change the DLL changes the key.
func sourceKey(root, cc string) (string, error) {
	h := sha256.New()
	for _, c := range [][]string{{"go", "version"}, {cc, "--version"}} {
		b, err := exec.Command(c[0], c[1:]...).Output()
		if err != nil {
			return "", fmt.Errorf("%s: %w", strings.Join(c, " "), err)
		}
		h.Write(b)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, "_test.go"):
			return nil
		case strings.HasSuffix(name, ".go"), strings.HasSuffix(name, ".c"), strings.HasSuffix(name, ".h"),
			strings.HasSuffix(name, ".s"), name == "go.mod", name == "go.sum":
		default:
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// The built DLL passes the export check; a DLL without one of the
// exports, or with one misnamed, fails it, naming what is missing.
func TestExportCheck(t *testing.T) {
	dll := extDLL(t)
	names, err := peexports.Names(dll)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exports: %q", names)

	cc, _ := exec.LookPath(wintest.MingwCC)
	dir := t.TempDir()
	src := filepath.Join(dir, "broken.c")
	// DebugExtensionCanUnload is missing and the initializer misnamed in
	// case; the rest is there.
	code := `#include <windows.h>
__declspec(dllexport) HRESULT CALLBACK debugExtensionInitialize(PULONG v, PULONG f) { *v = 0x10000; *f = 0; return S_OK; }
__declspec(dllexport) void CALLBACK DebugExtensionUninitialize(void) {}
__declspec(dllexport) HRESULT CALLBACK mcp(void *c, const char *a) { return S_OK; }
__declspec(dllexport) HRESULT CALLBACK help(void *c, const char *a) { return S_OK; }
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.dll")
	if b, err := exec.Command(cc, "-shared", "-o", broken, src).CombinedOutput(); err != nil {
		t.Fatalf("building the broken DLL: %v\n%s", err, b)
	}
	err = peexports.Check(broken, peexports.WinDbgExtension)
	if err == nil || !strings.Contains(err.Error(), `"DebugExtensionInitialize" "DebugExtensionCanUnload"`) {
		t.Fatalf("check of a DLL without DebugExtensionCanUnload and with debugExtensionInitialize: %v", err)
	}
	// The command CI runs fails on it too.
	cmd := exec.Command("go", "run", "./examples/windbg/ext/exportcheck", broken)
	cmd.Dir = peertest.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "DebugExtensionCanUnload") {
		t.Fatalf("exportcheck on the broken DLL: %v\n%s", err, out)
	}
}

// The DLL must not import os/signal. The Go runtime registers a console
// control handler in every Windows process it runs in; it passes CTRL+C
// on to the host (cdb breaks into the target with it) only while no Go
// code has asked for signals, which os/signal.Notify does.
func TestDLLDoesNotTakeSignals(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC="+wintest.MingwCC)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %q", deps)
	}
	for _, d := range deps {
		if d == "os/signal" {
			t.Errorf("the extension depends on os/signal")
		}
	}
}

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := range 6 {
		p := filepath.Join(dir, fmt.Sprintf("%d.dll", i))
		os.WriteFile(p, nil, 0o644)
		os.Chtimes(p, base.Add(time.Duration(i)*time.Minute), base.Add(time.Duration(i)*time.Minute))
	}
	os.WriteFile(filepath.Join(dir, "keep.txt"), nil, 0o644)
	pruneCache(dir, 4)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "2.dll 3.dll 4.dll 5.dll keep.txt" {
		t.Errorf("after pruning: %s", got)
	}
}
