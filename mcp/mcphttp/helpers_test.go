package mcphttp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

type sumIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sumOut struct {
	Sum float64 `json:"sum"`
}

type stepsIn struct {
	Steps int `json:"steps"`
}

// httpTestServer is a Server with tools that exercise the transport: sum
// (plain), count (progress before the result) and ask (sampling).
func httpTestServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "http-test", Version: "1.0.0"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "sum", Description: "Adds."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "Reports progress, then the count."},
		func(ctx context.Context, req *mcp.CallToolRequest, in stepsIn) (*mcp.CallToolResult, sumOut, error) {
			for i := 1; i <= in.Steps; i++ {
				if err := req.Progress(ctx, float64(i), float64(in.Steps), fmt.Sprintf("step %d", i)); err != nil {
					return nil, sumOut{}, err
				}
			}
			return nil, sumOut{Sum: float64(in.Steps)}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Description: "Asks the client's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Q string `json:"q"`
		}) (*mcp.CallToolResult, any, error) {
			res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: in.Q}}}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "model said: " + res.Content[0].(*mcp.TextContent).Text}}}, nil, nil
		})
	return srv
}

// serveHTTP starts srv behind a Handler on a loopback httptest server.
func serveHTTP(t testing.TB, srv *mcp.Server, opts *mcphttp.HandlerOptions) (*mcphttp.Handler, string) {
	t.Helper()
	return serveHTTPWrapped(t, srv, opts, nil)
}

// serveHTTPWrapped is serveHTTP with middleware around the handler.
func serveHTTPWrapped(t testing.TB, srv *mcp.Server, opts *mcphttp.HandlerOptions, wrap func(http.Handler) http.Handler) (*mcphttp.Handler, string) {
	t.Helper()
	h, ts := startTestServer(t, srv, opts, wrap, false)
	return h, ts.URL + "/mcp"
}

// startTestServer serves srv through a Handler with opts (quiet unless
// they say otherwise) and wrap around it, over TLS with HTTP/2 if h2,
// shut down and closed at the test's end.
func startTestServer(t testing.TB, srv *mcp.Server, opts *mcphttp.HandlerOptions, wrap func(http.Handler) http.Handler, h2 bool) (*mcphttp.Handler, *httptest.Server) {
	t.Helper()
	if opts == nil {
		opts = &mcphttp.HandlerOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = quietLog
	}
	h := mcphttp.NewHandler(srv, opts)
	var served http.Handler = h
	if wrap != nil {
		served = wrap(h)
	}
	ts := httptest.NewUnstartedServer(served)
	if h2 {
		ts.EnableHTTP2 = true
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		ts.Close()
	})
	return h, ts
}

// dialHTTP connects our client over HTTP and returns it with its framer.
func dialHTTP(t testing.TB, url string, opts *client.Options) (*client.Client, *mcphttp.Framer) {
	t.Helper()
	return dialHTTPWith(t, url, nil, opts)
}

// dialHTTPWith is dialHTTP with the transport's options (quiet, and
// retrying after 10 ms, unless they say otherwise).
func dialHTTPWith(t testing.TB, url string, copts *mcphttp.ClientOptions, opts *client.Options) (*client.Client, *mcphttp.Framer) {
	t.Helper()
	ctx := context.Background()
	if copts == nil {
		copts = &mcphttp.ClientOptions{}
	}
	if copts.Logger == nil {
		copts.Logger = quietLog
	}
	if copts.RetryDelay == 0 {
		copts.RetryDelay = 10 * time.Millisecond
	}
	f, err := mcphttp.NewFramer(ctx, url, copts)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &client.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quietLog
	}
	c, err := client.Connect(ctx, transport.NewStream(f, &transport.StreamOptions{Logger: quietLog}), opts)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, f
}

// rawPost sends body with the given headers (Content-Type and Accept
// default to what the transport requires unless set, "-" removes one).
func rawPost(t testing.TB, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "-" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// deleteSession sends DELETE for session sid and returns the status code.
func deleteSession(t testing.TB, url, sid string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(mcphttp.HeaderSessionID, sid)
	req.Header.Set(mcphttp.HeaderProtocolVersion, mcp.Version20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
