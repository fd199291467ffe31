package bench

import (
	"bytes"
	"context"
	"fmt"
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
	ts, hc := startBare()
	defer ts.Close()
	defer hc.CloseIdleConnections()
	b.ReportAllocs()
	start := time.Now()
	cpu := procCPU(os.Getpid())
	for range b.N {
		if err := bareCall(hc, ts.URL); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, b.N, time.Since(start))
	reportProcessCPU(b, cpu, b.N)
}

// BenchmarkHTTPBare64 is the floor of BenchmarkHTTPConcurrent64: the bare
// POST of BenchmarkHTTPBare from 64 goroutines sharing the client.
func BenchmarkHTTPBare64(b *testing.B) {
	ts, hc := startBare()
	defer ts.Close()
	defer hc.CloseIdleConnections()
	call64(b, func() error { return bareCall(hc, ts.URL) })
}

var (
	bareBody   = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	bareAnswer = []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`)
)

// startBare starts the bare anchors' server and client.
func startBare() (*httptest.Server, *http.Client) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bareAnswer)
	}))
	return ts, newBenchHTTPClient()
}

// bareCall is one bare round trip, its answer checked.
func bareCall(hc *http.Client, url string) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(bareBody))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if !bytes.Equal(got, bareAnswer) {
		return fmt.Errorf("answer %q", got)
	}
	return nil
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
		{name: "mcpgo", start: startMCPGoHTTP(false), mcp: true},
	} {
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			echoSequentially(b, s, processCPU(b))
		})
	}
}
