package client_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/peertest"
)

// BenchmarkSpawnToReady measures Launch of examples/echo: start the
// process, handshake (server/discover), ready for calls; then Close. The
// reported spawn-to-ready excludes the Close.
func BenchmarkSpawnToReady(b *testing.B) {
	echo := peertest.BuildGo(b, "./examples/echo")
	cmd := &client.Command{Path: echo}
	opts := &client.ProcessOptions{Logger: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	var ready time.Duration
	for b.Loop() {
		start := time.Now()
		p, err := client.Launch(ctx, cmd, opts)
		if err != nil {
			b.Fatal(err)
		}
		ready += time.Since(start)
		p.Close()
	}
	b.ReportMetric(float64(ready.Microseconds())/float64(b.N), "µs-to-ready/op")
}
