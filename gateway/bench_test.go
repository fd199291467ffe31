//go:build linux

package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// benchServer serves on stdio: the test upstream itself
// ("bench-upstream"), or the facade over it in process with the audit on
// ("bench-facade"), the way `winbridge gateway -bridge` runs.
func benchServer(mode string) int {
	log := slog.New(slog.DiscardHandler)
	stream, err := transport.Stdio(&transport.StreamOptions{Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if path := os.Getenv("WINBRIDGE_GATEWAY_CPUPROFILE"); path != "" {
		// The facade runs in this child: profile it here (the parent's
		// -cpuprofile sees only the client).
		f, err := os.Create(path + "." + mode)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	up := upstreamServer()
	if mode == "bench-upstream" {
		_ = up.Run(context.Background(), stream)
		return 0
	}
	rf, err := OpenRotatingFile(os.Getenv("WINBRIDGE_GATEWAY_AUDIT"), 0, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer rf.Close()
	g, err := New(&Options{Servers: map[string]*mcp.Server{"up": up}, Logger: log, Audit: slog.NewJSONHandler(rf, nil),
		Policy: &Policy{Budgets: Budgets{CallsPerSession: 1 << 30}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer g.Close()
	if err := g.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = g.Server().Run(context.Background(), stream)
	return 0
}

// BenchmarkFacadeOverhead: one small tools/call (echo of 12 bytes), one
// caller, to a stdio child: the upstream server itself ("direct"), or the
// facade serving the same server in process with the audit written to a
// file ("facade"). server-cpu-µs/call is the child's user + system time
// from /proc over the run; the difference is what the facade adds.
func BenchmarkFacadeOverhead(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"direct", "facade"} {
		b.Run(mode, func(b *testing.B) {
			helper, tool := "bench-upstream", "echo"
			if mode == "facade" {
				helper, tool = "bench-facade", "up__echo"
			}
			audit := filepath.Join(b.TempDir(), "audit.jsonl")
			p, err := client.Launch(context.Background(), &client.Command{Path: exe,
				Env: []string{helperEnv + "=" + helper, "WINBRIDGE_GATEWAY_AUDIT=" + audit, "WINBRIDGE_GATEWAY_CPUPROFILE=" + os.Getenv("WINBRIDGE_GATEWAY_CPUPROFILE")}},
				&client.ProcessOptions{Logger: slog.New(slog.DiscardHandler), Client: &client.Options{ProtocolVersion: "2025-11-25"}})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			ctx := context.Background()
			args := map[string]string{"text": "hello, world"}
			if res, err := p.CallTool(ctx, tool, args); err != nil || res.IsError {
				b.Fatalf("%v %+v", err, res)
			}
			pid := p.Pid()
			cpu0 := procCPU(pid)
			b.ResetTimer()
			for b.Loop() {
				if _, err := p.CallTool(ctx, tool, args); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((procCPU(pid)-cpu0).Microseconds())/float64(b.N), "server-cpu-µs/call")
			if mode == "facade" {
				n := 0
				files, _ := filepath.Glob(audit + "*") // rotated past 16 MiB
				for _, f := range files {
					data, _ := os.ReadFile(f)
					n += strings.Count(string(data), "\n")
				}
				if n < b.N {
					b.Fatalf("%d audit lines for %d calls", n, b.N)
				}
			}
		})
	}
}

// procCPU is the user + system CPU time of a process, from /proc.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100
}
