package client

import (
	"strings"
	"testing"
)

// BenchmarkCheckResult is the check of a tool result of 8 MiB of text, the
// large result of BenchmarkPipeToolCall, and of a large list of tools.
func BenchmarkCheckResult(b *testing.B) {
	c := &Client{}
	tool := `{"name":"read_file","description":"Reads a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`
	for _, r := range []struct{ name, raw string }{
		{"text8MiB", `{"content":[{"type":"text","text":"` + strings.Repeat("x", 8<<20) + `"}]}`},
		{"tools1MiB", `{"tools":[` + strings.TrimSuffix(strings.Repeat(tool+",", (1<<20)/len(tool)), ",") + `]}`},
	} {
		b.Run(r.name, func(b *testing.B) {
			raw := []byte(r.raw)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.checkResult("tools/call", raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
