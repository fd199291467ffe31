package transport

import "testing"

// BenchmarkDecodeEnvelope reads a stateless tool call and its response as
// a 2026-07-28 client and server send them.
func BenchmarkDecodeEnvelope(b *testing.B) {
	for _, c := range []struct{ name, msg string }{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},"_meta":{` +
			`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"winbridge-client","version":"0.1.0"},` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3},` +
			`"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}}`},
	} {
		msg := []byte(c.msg)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, rej := decodeEnvelope(msg); rej != nil {
					b.Fatal(rej)
				}
			}
		})
	}
}
