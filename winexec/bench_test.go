//go:build unix

package winexec

import (
	"context"
	"testing"

	"github.com/winbridge/winbridge/internal/wintest"
)

// Per-call overhead of each backend that runs here: each iteration runs a
// program that exits at once. The PowerShell numbers are for the test
// double (a Go program), so they measure our side of the protocol plus one
// process start (powershell) or none (pshost), not PowerShell's start-up.

func benchRun(b *testing.B, be Backend, req Request) {
	b.Helper()
	ctx := context.Background()
	for b.Loop() {
		res, err := be.Run(ctx, &req)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

func BenchmarkLocal(b *testing.B) {
	benchRun(b, &Local{}, Request{Exe: "/bin/true"})
}

func BenchmarkLocalHelper(b *testing.B) {
	benchRun(b, &Local{}, Request{Exe: nativeHelper(b), Args: []string{"exit", "0"}})
}

func BenchmarkDirectWine(b *testing.B) {
	w := wintest.NeedWine(b)
	prog := wintest.GoWindowsExe(b, "testdata/wprobe")
	benchRun(b, &Direct{Launcher: w.Launcher()}, Request{Exe: prog, Args: []string{"exit", "0"}})
}

func BenchmarkPowerShellFake(b *testing.B) {
	ps := &PowerShell{Exe: fakePS(b, "normal"), WinCwd: b.TempDir(), Paths: &PathMapper{Distro: "B"}}
	benchRun(b, ps, Request{Exe: "/bin/true"})
}

func BenchmarkPSHostFake(b *testing.B) {
	h := &PSHost{PowerShell: PowerShell{Exe: fakePS(b, "normal"), WinCwd: b.TempDir(), Paths: &PathMapper{Distro: "B"}}}
	defer h.Close()
	benchRun(b, h, Request{Exe: "/bin/true"})
}

func BenchmarkPSHostFakeNoProcess(b *testing.B) {
	// fake-exit-0 starts nothing: the round trip of the protocol alone.
	h := &PSHost{PowerShell: PowerShell{Exe: fakePS(b, "normal"), WinCwd: b.TempDir(), Paths: &PathMapper{Distro: "B"}}}
	defer h.Close()
	benchRun(b, h, Request{Exe: "fake-exit-0"})
}
