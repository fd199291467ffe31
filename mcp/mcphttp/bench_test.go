package mcphttp_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// BenchmarkHTTPRoundTrip measures a tools/call over loopback HTTP, our
// client to our server: one at a time, and 64 in flight on one client; in a
// legacy session (SSE answer) and stateless (SSE answer on a session per
// request).
func BenchmarkHTTPRoundTrip(b *testing.B) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		for _, conc := range []int{1, 64} {
			name := v + "/sequential"
			if conc > 1 {
				name = v + "/concurrent64"
			}
			b.Run(name, func(b *testing.B) {
				_, url := serveHTTP(b, httpTestServer(), nil)
				hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
				defer hc.CloseIdleConnections()
				stream, err := mcphttp.NewStream(context.Background(), url, &mcphttp.ClientOptions{Client: hc, Logger: quietLog, Stream: &transport.StreamOptions{Logger: quietLog}})
				if err != nil {
					b.Fatal(err)
				}
				c, err := client.Connect(context.Background(), stream, &client.Options{ProtocolVersion: v, Logger: quietLog})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				args := map[string]float64{"a": 1, "b": 2}
				b.ReportAllocs()
				b.ResetTimer()
				var wg sync.WaitGroup
				per := (b.N + conc - 1) / conc
				for g := 0; g < conc; g++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; i < per; i++ {
							if _, err := c.CallTool(context.Background(), "sum", args); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
			})
		}
	}
}
