package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/winbridge/winbridge/bench/internal/servers/mcpgosrv"
	"github.com/winbridge/winbridge/bench/internal/servers/wb"
	wbclient "github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Anchors for the HTTP rows: what net/http alone costs, and each end of
// winbridge against the other library's, so that a change can be placed
// on the client or on the server.

// BenchmarkHTTPBare is the floor: one POST of a tools/call-sized JSON body
// to a handler that answers a fixed tools/call-sized JSON body, with the
// same http.Client every library gets. No MCP library is involved.
func BenchmarkHTTPBare(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer ts.Close()
	hc := newBenchHTTPClient()
	defer hc.CloseIdleConnections()
	b.ReportAllocs()
	start := time.Now()
	cpu := procCPU(os.Getpid())
	for range b.N {
		req, err := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, answer) {
			b.Fatalf("answer %q, %v", got, err)
		}
	}
	reportRate(b, b.N, time.Since(start))
	reportProcessCPU(b, cpu, b.N)
}

// startWBClientMCPGoServer: winbridge's client (2025-11-25, no GET
// stream, as mcp-go's client) against mcp-go's handler.
func startWBClientMCPGoServer(ctx context.Context) (session, error) {
	ts := httptest.NewServer(mcpgoserver.NewStreamableHTTPServer(mcpgosrv.New()))
	hc := newBenchHTTPClient()
	stream, err := mcphttp.NewStream(context.Background(), ts.URL+"/mcp", &mcphttp.ClientOptions{Client: hc, NoListen: true})
	if err == nil {
		var c *wbclient.Client
		if c, err = wbclient.Connect(ctx, stream, &wbclient.Options{ProtocolVersion: legacyVersion}); err == nil {
			return &httpSession{session: &winbridgeSession{c: c}, closeClient: c.Close, ts: ts, hc: hc}, nil
		}
		stream.Close()
	}
	ts.CloseClientConnections()
	ts.Close()
	return nil, err
}

// startMCPGoClientWBServer: mcp-go's client against winbridge's handler.
func startMCPGoClientWBServer(ctx context.Context) (session, error) {
	h := mcphttp.NewHandler(wb.New(), nil)
	ts := httptest.NewServer(h)
	hc := newBenchHTTPClient()
	shutdown := shutdownWithin(h)
	c, err := dialMCPGoHTTP(ctx, ts.URL, hc)
	if err != nil {
		shutdown()
		ts.CloseClientConnections()
		ts.Close()
		return nil, err
	}
	return &httpSession{session: &mcpgoSession{c: c}, closeClient: c.Close, shutdown: shutdown, ts: ts, hc: hc}, nil
}

// BenchmarkHTTPCross: sequential echo calls with one end winbridge's and
// the other mcp-go's, beside the two libraries on their own, in one run.
// With the bare floor, it tells which end a cost is on.
func BenchmarkHTTPCross(b *testing.B) {
	for _, im := range []impl{
		{name: "winbridge-client-mcpgo-server", start: startWBClientMCPGoServer, mcp: true},
		{name: "mcpgo-client-winbridge-server", start: startMCPGoClientWBServer, mcp: true},
		{name: "winbridge", start: startWinbridgeHTTP(legacyVersion), mcp: true},
		{name: "mcpgo", start: startMCPGoHTTP, mcp: true},
	} {
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			echoSequentially(b, s, processCPU(b))
		})
	}
}
