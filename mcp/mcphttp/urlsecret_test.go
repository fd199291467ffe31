package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// The key a URL carries, in each place services put it. Upper case and
// digits, as keys are: a segment like it is hidden.
const urlKey = "Zq81xYt0PqLm3NvR"

// keyedURLs are base (scheme://host:port) with the key in the query, in
// the path and as userinfo (user name and password both).
func keyedURLs(base string) map[string]string {
	host := strings.TrimPrefix(base, "http://")
	return map[string]string{
		"query":    base + "/mcp?api_key=" + urlKey,
		"path":     base + "/mcp/" + urlKey + "/sse",
		"userinfo": "http://" + urlKey + ":" + urlKey + "@" + host + "/mcp",
	}
}

// syncBuffer is a log's destination that the framer's goroutines and the
// test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// noKey fails t if text shows the key, or does not name host.
func noKey(t *testing.T, what, text, host string) {
	t.Helper()
	if strings.Contains(text, urlKey) {
		t.Errorf("%s shows the URL's key: %s", what, text)
	}
	if host != "" && !strings.Contains(text, host) {
		t.Errorf("%s should name the server %s: %s", what, host, text)
	}
}

// A request that fails (no server, a server that hangs up, a timeout)
// names the server in its error, and never the key in its URL: error
// text ends up in logs and bug reports. Before, net/http's *url.Error
// quoted the whole URL.
func TestURLKeyNotInErrors(t *testing.T) {
	closed := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}
	// hangUp reads each request and closes the connection without a
	// response.
	hangUp := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					c.Close()
				}
				c.Close()
			}
		}()
		return "http://" + ln.Addr().String()
	}
	// hang answers no request until the client gives up.
	hang := func(t *testing.T) string {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // so that the server notices the client leave
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		t.Cleanup(srv.Close)
		t.Cleanup(func() { close(release) }) // first
		return srv.URL
	}
	for _, tc := range []struct {
		name    string
		server  func(*testing.T) string
		timeout time.Duration
		is      error
	}{
		{"closed port", closed, 0, nil},
		{"hang-up", hangUp, 0, nil},
		{"timeout", hang, 200 * time.Millisecond, context.DeadlineExceeded},
	} {
		base := tc.server(t)
		host := strings.TrimPrefix(base, "http://")
		for where, u := range keyedURLs(base) {
			t.Run(tc.name+"/"+where, func(t *testing.T) {
				var logs syncBuffer
				log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				f, err := mcphttp.NewFramer(context.Background(), u, &mcphttp.ClientOptions{
					Client: &http.Client{Timeout: tc.timeout}, Logger: log, MaxRetries: -1, CloseTimeout: -1,
				})
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				_, err = f.RoundTrip(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				if err == nil {
					t.Fatal("RoundTrip succeeded")
				}
				noKey(t, "RoundTrip's error", err.Error(), host)
				var ue *url.Error
				if !errors.As(err, &ue) {
					t.Errorf("errors.As(%v, *url.Error) = false", err)
				} else {
					noKey(t, "the *url.Error's URL", ue.URL, host)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
				}
				var ne net.Error
				if tc.name != "hang-up" && !errors.As(err, &ne) {
					t.Errorf("errors.As(%v, net.Error) = false", err)
				}

				// WriteFrame's POST fails in the background: the
				// caller reads an error response made up of its error.
				if err := f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); err != nil {
					t.Fatal(err)
				}
				msg, err := f.ReadFrame()
				if err != nil {
					t.Fatal(err)
				}
				noKey(t, "the made-up error response", string(msg), host)
				if err := f.Close(); err != nil {
					noKey(t, "Close's error", err.Error(), "")
				}
				noKey(t, "the log", logs.String(), "")
			})
		}
	}
}

// A server that hangs up halfway through its response: the error names
// no key either.
func TestURLKeyNotInBodyErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,`))
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	defer srv.Close()
	for where, u := range keyedURLs(srv.URL) {
		t.Run(where, func(t *testing.T) {
			var logs syncBuffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			f, err := mcphttp.NewFramer(context.Background(), u, &mcphttp.ClientOptions{Logger: log, MaxRetries: -1, CloseTimeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			msg, err := f.RoundTrip(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			text := string(msg)
			if err != nil {
				text = err.Error()
			}
			if !strings.Contains(text, "error") && err == nil {
				t.Fatalf("a cut response gave %s", text)
			}
			noKey(t, "the result", text, "")
			f.Close()
			noKey(t, "the log", logs.String(), "")
		})
	}
}

// NewFramer's own errors about the URL show it as the others do.
func TestURLKeyNotInEndpointErrors(t *testing.T) {
	for _, u := range []string{
		"ftp://mcp.example/mcp?api_key=" + urlKey,
		"http://mcp.example/" + urlKey + "/%zz",
		"http://" + urlKey + ":" + urlKey + "@mcp.example:%zz/mcp",
	} {
		_, err := mcphttp.NewFramer(context.Background(), u, nil)
		if err == nil {
			t.Fatalf("NewFramer(%q) succeeded", u)
		}
		noKey(t, "NewFramer's error", err.Error(), "")
		if !strings.Contains(err.Error(), "MCP endpoint") {
			t.Errorf("NewFramer's error should say what is wrong: %v", err)
		}
	}
}
