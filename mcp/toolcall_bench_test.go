package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/jsonscan"
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
		if !jsonscan.ValidMessage(raw) {
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

// BenchmarkToolCallClientDecode is the client's decoding of a result:
// through json.Unmarshal, as a caller with its own bytes would decode it
// (which checks them and scans for their end before calling
// UnmarshalJSON), and directly, as transport.Call.Result does with the
// bytes the stream has checked: the part that is this package's.
func BenchmarkToolCallClientDecode(b *testing.B) {
	decoders := []struct {
		name   string
		decode func([]byte, *CallToolResult) error
	}{
		{"json.Unmarshal", func(raw []byte, res *CallToolResult) error { return json.Unmarshal(raw, res) }},
		{"direct", func(raw []byte, res *CallToolResult) error { return res.UnmarshalJSON(raw) }},
	}
	for _, sz := range benchSizes {
		raw, err := json.Marshal(&CallToolResult{Content: []Content{&TextContent{Text: benchText(sz.size)}}})
		if err != nil {
			b.Fatal(err)
		}
		// As a 2026-07-28 server stamps it, with resultType and its
		// identity in _meta.
		stamped, err := json.Marshal(&CallToolResult{Content: []Content{&TextContent{Text: benchText(sz.size)}},
			ResultEnvelope: ResultEnvelope{ResultType: ResultComplete, Meta: Meta{MetaServerInfo: map[string]any{"name": "bench", "version": "1"}}}})
		if err != nil {
			b.Fatal(err)
		}
		// As a typed tool answers: its output as structured content too.
		structured, err := json.Marshal(&CallToolResult{Content: []Content{&TextContent{Text: benchText(sz.size)}},
			StructuredContent: json.RawMessage(`{"sum":3}`)})
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range decoders {
			b.Run(sz.name+"/structured/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(sz.size))
				b.ReportAllocs()
				for b.Loop() {
					var res CallToolResult
					if err := d.decode(structured, &res); err != nil || len(res.Content) != 1 || res.StructuredContent == nil {
						b.Fatalf("decoded %d blocks, structured %v: %v", len(res.Content), res.StructuredContent, err)
					}
				}
			})
			b.Run(sz.name+"/stateless/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(sz.size))
				b.ReportAllocs()
				for b.Loop() {
					var res CallToolResult
					if err := d.decode(stamped, &res); err != nil || len(res.Content) != 1 || res.Meta == nil {
						b.Fatalf("decoded %d blocks, _meta %v: %v", len(res.Content), res.Meta, err)
					}
				}
			})
			b.Run(sz.name+"/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(sz.size))
				b.ReportAllocs()
				for b.Loop() {
					var res CallToolResult
					if err := d.decode(raw, &res); err != nil || len(res.Content) != 1 {
						b.Fatalf("decoded %d blocks: %v", len(res.Content), err)
					}
				}
			})
		}
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

// BenchmarkRawJSON is the yardstick: what the raw+json baseline of the
// bench module does per call, the server decoding the request into a
// struct and encoding the result, the client decoding the result.
func BenchmarkRawJSON(b *testing.B) {
	type request struct {
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		} `json:"params"`
	}
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content []content `json:"content"`
	}
	for _, sz := range benchSizes {
		params, err := json.Marshal(map[string]any{"params": map[string]any{"name": "echo", "arguments": map[string]string{"text": benchText(sz.size)}}})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("server/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				var req request
				if err := json.Unmarshal(params, &req); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(&result{Content: []content{{"text", req.Params.Arguments.Text}}}); err != nil {
					b.Fatal(err)
				}
			}
		})
		raw, err := json.Marshal(&result{Content: []content{{"text", benchText(sz.size)}}})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("client/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			for b.Loop() {
				var res result
				if err := json.Unmarshal(raw, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkToolCallServerStateless is BenchmarkToolCallServer for a
// 2026-07-28 request, on a session of its own as over HTTP: the _meta a
// client sends with every request, and the server's identity stamped on
// the result.
func BenchmarkToolCallServerStateless(b *testing.B) {
	srv := benchServerSession(b).srv
	params, err := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]string{"text": benchText(12)},
		"_meta": map[string]any{
			MetaProtocolVersion:    Version20260728,
			MetaClientInfo:         map[string]string{"name": "bench", "version": "1"},
			MetaClientCapabilities: map[string]any{},
		}})
	if err != nil {
		b.Fatal(err)
	}
	r := &transport.Request{ID: transport.IntID(1), Method: "tools/call", Params: params}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ss := srv.ConnectDirect(nil)
		res, err := ss.dispatch(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		out, err := encodeAsTransport(res)
		if err != nil || !strings.Contains(string(out), MetaServerInfo) {
			b.Fatalf("encoded %s: %v", out, err)
		}
		ss.Close()
	}
}
