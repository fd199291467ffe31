package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/transport"
)

// These benchmarks isolate the tools/call path of this package, without a
// transport: the server's handling of one call (params and arguments
// decoded, arguments validated, handler run, result encoded as the
// transport encodes it) and the client's decoding of a result. Compare
// B/op and allocs/op: with an 8 MiB text they count the passes over the
// payload, with a short text the fixed cost per call.

type benchEchoIn struct {
	Text string `json:"text"`
}

// benchSizes are the text sizes: the 8 MiB of the end-to-end benchmark's
// Echo8MiB and the 12 bytes of its Sequential.
var benchSizes = []struct {
	name string
	size int
}{{"8MiB", 8 << 20}, {"short", 12}}

func benchText(n int) string { return strings.Repeat("abcdefghijklmnop", n/16+1)[:n] }

// benchServerSession is an initialized legacy session of a server with the
// benchmark's echo tool, as bench/internal/servers/wb registers it.
func benchServerSession(tb testing.TB) *ServerSession {
	srv := NewServer(&Implementation{Name: "bench", Version: "1"}, nil)
	AddTool(srv, &Tool{Name: "echo", Description: "Echo the text back."},
		func(ctx context.Context, req *CallToolRequest, in benchEchoIn) (*CallToolResult, any, error) {
			return &CallToolResult{Content: []Content{&TextContent{Text: in.Text}}}, nil, nil
		})
	ss := newServerSession(srv)
	ss.initialized, ss.version = true, LatestLegacyVersion
	return ss
}

// encodeAsTransport encodes a result the way transport.Conn.Reply does: a
// json.RawMessage is checked and sent as is, anything else is marshalled.
func encodeAsTransport(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, &json.SyntaxError{}
		}
		return raw, nil
	}
	return json.Marshal(v)
}

func BenchmarkToolCallServer(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			ss := benchServerSession(b)
			params, err := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]string{"text": benchText(sz.size)}})
			if err != nil {
				b.Fatal(err)
			}
			r := &transport.Request{ID: transport.IntID(1), Method: "tools/call", Params: params}
			ctx := context.Background()
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				res, err := ss.dispatch(ctx, r)
				if err != nil {
					b.Fatal(err)
				}
				out, err := encodeAsTransport(res)
				if err != nil || len(out) < sz.size {
					b.Fatalf("encoded %d bytes: %v", len(out), err)
				}
			}
		})
	}
}

func BenchmarkToolCallClientDecode(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			raw, err := json.Marshal(&CallToolResult{Content: []Content{&TextContent{Text: benchText(sz.size)}}})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				// As transport.Call.Result decodes a call's result.
				var res CallToolResult
				if err := json.Unmarshal(raw, &res); err != nil {
					b.Fatal(err)
				}
				if len(res.Content) != 1 {
					b.Fatal("no content")
				}
			}
		})
	}
}

// BenchmarkAddTool is the cost of registering a typed tool, part of a
// server's start.
func BenchmarkAddTool(b *testing.B) {
	type in struct {
		Path  string `json:"path" jsonschema:"description=the file"`
		Lines int    `json:"lines,omitempty"`
	}
	srv := NewServer(&Implementation{Name: "bench", Version: "1"}, nil)
	b.ReportAllocs()
	for b.Loop() {
		AddTool(srv, &Tool{Name: "t"}, func(ctx context.Context, req *CallToolRequest, _ in) (*CallToolResult, any, error) {
			return nil, nil, nil
		})
	}
}
