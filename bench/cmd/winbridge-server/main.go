// Command winbridge-server serves the benchmark workload with winbridge over
// stdio (transport.Stdio), with default server options.
//
// With WB_CPUPROFILE set, it writes a CPU profile of its whole life to that
// file, for looking at the server side of a benchmark.
package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/pprof"

	"github.com/winbridge/winbridge/bench/internal/servers/wb"
	"github.com/winbridge/winbridge/transport"
)

func main() {
	stop := func() {}
	if path := os.Getenv("WB_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			stop = func() { pprof.StopCPUProfile(); f.Close() }
		}
	}
	code := serve()
	stop()
	os.Exit(code)
}

func serve() int {
	stream, err := transport.Stdio(nil)
	if err != nil {
		slog.Error("stdio", "err", err)
		return 1
	}
	if err := wb.New().Run(context.Background(), stream); err != nil {
		slog.Error("serving", "err", err)
		return 1
	}
	return 0
}
