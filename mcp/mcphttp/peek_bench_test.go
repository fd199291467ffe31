package mcphttp

import "testing"

// BenchmarkPeekOut reads a stateless tool call as the client's Stream
// encodes it.
func BenchmarkPeekOut(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},"_meta":{` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"winbridge-client","version":"0.1.0"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		peekOut(msg)
	}
}

// BenchmarkParseMessage reads a POSTed stateless tool call.
func BenchmarkParseMessage(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},"_meta":{` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"winbridge-client","version":"0.1.0"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := parseMessage(body); e != nil {
			b.Fatal(e)
		}
	}
}

// BenchmarkPeekIn reads the response to a stateless tool call.
func BenchmarkPeekIn(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3},` +
		`"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if e := peekIn(msg); e.result == nil {
			b.Fatal("no result")
		}
	}
}
