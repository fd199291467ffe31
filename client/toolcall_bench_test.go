package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// BenchmarkPipeToolCall is one tools/call echo between a client and a
// server in this process, over transport.Pipe: allocations cover both
// sides and the transport. Compare with the stdio benchmarks of the bench
// module, whose allocations are the client's alone.
func BenchmarkPipeToolCall(b *testing.B) {
	type echoIn struct {
		Text string `json:"text"`
	}
	for _, sz := range []struct {
		name string
		size int
	}{{"8MiB", 8 << 20}, {"short", 12}} {
		for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
			b.Run(sz.name+"/"+version, func(b *testing.B) {
				srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
				mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
				})
				a, s := transport.Pipe(nil)
				srv.Connect(s)
				c, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: version})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				text := strings.Repeat("x", sz.size)
				args := echoIn{Text: text}
				b.SetBytes(int64(sz.size))
				b.ReportAllocs()
				for b.Loop() {
					res, err := c.CallTool(context.Background(), "echo", args)
					if err != nil || len(res.TextOf()) != sz.size {
						b.Fatalf("%v, %d bytes", err, len(res.TextOf()))
					}
				}
			})
		}
	}
}
