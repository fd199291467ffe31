package gateway

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// BenchmarkPipeline: one small tools/call over an in-memory pipe, to the
// upstream server itself ("direct") or through the facade serving it in
// process ("facade"), with the audit going to a JSON handler that
// discards its output. With no process and no system call in the way the
// difference is the facade's own work, allocations included; it is the
// benchmark to profile the facade's call path with. The "-structured"
// modes call a tool with an outputSchema, whose structuredContent the
// facade checks.
func BenchmarkPipeline(b *testing.B) {
	for _, mode := range []string{"direct", "facade", "direct-structured", "facade-structured"} {
		b.Run(mode, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			srv, tool := upstreamServer(), "echo"
			var args any = map[string]string{"text": "hello, world"}
			if strings.HasSuffix(mode, "-structured") {
				tool, args = "add", map[string]int{"a": 1, "b": 2}
			}
			if strings.HasPrefix(mode, "facade") {
				g, err := New(&Options{Servers: map[string]*mcp.Server{"up": srv}, Logger: slog.New(slog.DiscardHandler),
					Audit: slog.NewJSONHandler(discard{}, nil), Policy: &Policy{Budgets: Budgets{CallsPerSession: 1 << 30}}})
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				if err := g.Start(ctx); err != nil {
					b.Fatal(err)
				}
				srv, tool = g.Server(), "up__"+tool
			}
			a, bb := transport.Pipe(nil)
			srv.Connect(a)
			c, err := client.Connect(ctx, bb, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(ctx, tool, args)
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
