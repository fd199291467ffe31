package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/winbridge/winbridge/bench/internal/servers/gosdksrv"
	"github.com/winbridge/winbridge/bench/internal/servers/mcpgosrv"
	"github.com/winbridge/winbridge/bench/internal/servers/wb"
	wbclient "github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// HTTP sessions: each library's own Streamable HTTP handler, default
// options, served by httptest.NewServer on 127.0.0.1 in this process, and
// the same library's client connected to it. Client and server share the
// process, so allocations cover both sides.
//
// Every client gets its own http.Client over a clone of
// http.DefaultTransport with MaxIdleConnsPerHost raised to 128 (the
// default, 2, would close and reopen connections under 64 concurrent
// callers and measure TCP setup instead of the libraries); nothing else is
// tuned.

// httpSession is a session over HTTP plus what to tear down after it.
type httpSession struct {
	session
	closeClient func() error
	shutdown    func() // the handler's own shutdown, if it has one
	ts          *httptest.Server
	hc          *http.Client
}

func (s *httpSession) pid() int { return 0 }

func (s *httpSession) close() error {
	err := s.closeClient()
	if s.shutdown != nil {
		s.shutdown()
	}
	s.hc.CloseIdleConnections()
	// Drop connections still held by streams (the standalone GET stream)
	// so that Close does not wait for them.
	s.ts.CloseClientConnections()
	s.ts.Close()
	return err
}

// newBenchHTTPClient is the http.Client every HTTP client library gets.
func newBenchHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 256
	tr.MaxIdleConnsPerHost = 128
	return &http.Client{Transport: tr}
}

// startWinbridgeHTTP serves wb.New() with mcphttp.NewHandler and connects
// with mcphttp.NewStream + client.Connect. version "" is winbridge's
// default: 2026-07-28, stateless (server/discover, no session).
func startWinbridgeHTTP(version string) func(ctx context.Context) (session, error) {
	return func(ctx context.Context) (session, error) {
		h := mcphttp.NewHandler(wb.New(), nil)
		ts := httptest.NewServer(h)
		hc := newBenchHTTPClient()
		shutdown := shutdownWithin(h)
		// The stream lives until Close, not until ctx (the start timeout).
		stream, err := mcphttp.NewStream(context.Background(), ts.URL, &mcphttp.ClientOptions{Client: hc})
		if err != nil {
			shutdown()
			ts.Close()
			return nil, err
		}
		c, err := wbclient.Connect(ctx, stream, &wbclient.Options{ProtocolVersion: version})
		if err != nil {
			stream.Close()
			shutdown()
			ts.CloseClientConnections()
			ts.Close()
			return nil, err
		}
		return &httpSession{
			session:     &winbridgeSession{c: c},
			closeClient: c.Close,
			shutdown:    shutdown,
			ts:          ts,
			hc:          hc,
		}, nil
	}
}

// startGoSDKHTTP serves gosdksrv.New() with mcp.NewStreamableHTTPHandler
// (stateful, SSE answers: the defaults; with stateless, its Stateless
// option: a session of its own per request, no session ID) and connects
// with mcp.StreamableClientTransport on protocol 2025-11-25.
func startGoSDKHTTP(stateless bool) func(ctx context.Context) (session, error) {
	return func(ctx context.Context) (session, error) {
		srv := gosdksrv.New()
		h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv },
			&gosdk.StreamableHTTPOptions{Stateless: stateless})
		ts := httptest.NewServer(h)
		hc := newBenchHTTPClient()
		cs, err := gosdkClient.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc},
			&gosdk.ClientSessionOptions{ProtocolVersion: legacyVersion})
		if err != nil {
			ts.CloseClientConnections()
			ts.Close()
			return nil, err
		}
		return &httpSession{
			session:     &gosdkSession{cs: cs},
			closeClient: cs.Close,
			ts:          ts,
			hc:          hc,
		}, nil
	}
}

// startMCPGoHTTP serves mcpgosrv.New() with server.NewStreamableHTTPServer
// used as an http.Handler (defaults: session ids generated but not kept,
// JSON answers unless the tool sends notifications; with stateless, its
// WithStateLess option: no session ID, a session of its own per request)
// and connects with client.NewStreamableHttpClient + Initialize on
// protocol 2025-11-25.
func startMCPGoHTTP(stateless bool) func(ctx context.Context) (session, error) {
	return func(ctx context.Context) (session, error) {
		var opts []mcpgoserver.StreamableHTTPOption
		if stateless {
			opts = append(opts, mcpgoserver.WithStateLess(true))
		}
		h := mcpgoserver.NewStreamableHTTPServer(mcpgosrv.New(), opts...)
		ts := httptest.NewServer(h)
		hc := newBenchHTTPClient()
		shutdown := shutdownWithin(h)
		c, err := dialMCPGoHTTP(ctx, ts.URL+"/mcp", hc)
		if err != nil {
			shutdown()
			ts.CloseClientConnections()
			ts.Close()
			return nil, err
		}
		return &httpSession{
			session:     &mcpgoSession{c: c},
			closeClient: c.Close,
			shutdown:    shutdown,
			ts:          ts,
			hc:          hc,
		}, nil
	}
}

// processCPU starts measuring this process's CPU for echoSequentially.
func processCPU(b *testing.B) func() func(int) {
	return func() func(int) {
		cpu := procCPU(os.Getpid())
		return func(calls int) { reportProcessCPU(b, cpu, calls) }
	}
}

// shutdownWithin returns a function that shuts h down, giving it 5 s.
func shutdownWithin(h interface{ Shutdown(context.Context) error }) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	}
}

// dialMCPGoHTTP connects mcp-go's Streamable HTTP client to url over hc
// and initializes on protocol 2025-11-25.
func dialMCPGoHTTP(ctx context.Context, url string, hc *http.Client) (*mcpgoclient.Client, error) {
	c, err := mcpgoclient.NewStreamableHttpClient(url, mcpgotransport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		c.Close()
		return nil, err
	}
	if err := initializeMCPGo(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// reportProcessCPU adds cpu-µs/call: the CPU time of this process, client
// and server together, since since (procCPU) divided by the calls.
func reportProcessCPU(b *testing.B, since time.Duration, calls int) {
	if calls > 0 {
		c := procCPU(os.Getpid()) - since
		b.ReportMetric(float64(c.Microseconds())/float64(calls), "cpu-µs/call")
	}
}

var httpImpls = []impl{
	{name: "winbridge", start: startWinbridgeHTTP(legacyVersion), mcp: true, concurrent: true},
	{name: "winbridge-2026-07-28", start: startWinbridgeHTTP(""), mcp: true, concurrent: true},
	{name: "gosdk", start: startGoSDKHTTP(false), mcp: true, concurrent: true},
	{name: "mcpgo", start: startMCPGoHTTP(false), mcp: true, concurrent: true},
	// Each library's own stateless mode: a session per request, as
	// winbridge's 2026-07-28 path serves one.
	{name: "gosdk-stateless", start: startGoSDKHTTP(true), mcp: true, concurrent: true},
	{name: "mcpgo-stateless", start: startMCPGoHTTP(true), mcp: true, concurrent: true},
}

// BenchmarkHTTPSequential: one tools/call echo with a short text per op,
// one caller, over loopback HTTP to an in-process server. Allocations
// cover client and server.
func BenchmarkHTTPSequential(b *testing.B) {
	for _, im := range httpImpls {
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			echoSequentially(b, s, processCPU(b))
		})
	}
}

// BenchmarkHTTPConcurrent64: 64 goroutines share one client and call echo
// as fast as they can, over loopback HTTP to an in-process server.
func BenchmarkHTTPConcurrent64(b *testing.B) {
	for _, im := range httpImpls {
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			ctx := context.Background()
			call64(b, func() error {
				got, err := s.echo(ctx, shortText)
				if err == nil && got != shortText {
					err = fmt.Errorf("echo returned %q", got)
				}
				return err
			})
		})
	}
}

// call64 runs call from 64 goroutines (GOMAXPROCS × the parallelism) as
// fast as they can, stopping a goroutine at its first error, and reports
// calls/s and the process's CPU per call.
func call64(b *testing.B, call func() error) {
	b.SetParallelism(max(1, 64/runtimeGOMAXPROCS()))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	cpu := procCPU(os.Getpid())
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := call(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportRate(b, b.N, time.Since(start))
	reportProcessCPU(b, cpu, b.N)
}
