package mcphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The framer asks for gzip itself where net/http's Transport would have,
// and decodes it as the Transport did: JSON and SSE answers, a body that
// is not gzip, a bomb over MaxMessageSize, and the caller's own
// Accept-Encoding or a Transport with DisableCompression left alone.

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.Bytes()
}

// gzipServer answers each POST with body(id) under Content-Type ct,
// gzipped when the client asked for gzip; sawAE receives what it asked.
func gzipServer(ct string, body func(id string) []byte, sawAE chan<- string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r)
		ae := r.Header.Get("Accept-Encoding")
		select {
		case sawAE <- ae:
		default:
		}
		w.Header().Set("Content-Type", ct)
		b := body(id)
		if ae == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			b = gzipped(string(b))
		}
		_, _ = w.Write(b)
	}
}

func gzipCall(t *testing.T, h http.HandlerFunc, opts *ClientOptions) ([]byte, error) {
	t.Helper()
	ts := httptest.NewServer(h)
	defer ts.Close()
	if opts.Client == nil {
		opts.Client = &http.Client{Transport: &http.Transport{}}
	}
	defer opts.Client.CloseIdleConnections()
	opts.NoListen = true
	f := newTestFramer(t, ts.URL, opts)
	defer f.Close()
	return f.RoundTrip(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`))
}

func TestGzipAnswers(t *testing.T) {
	directLeaks(t)
	jsonBody := func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"x":1}}`) }
	sseBody := func(id string) []byte {
		return []byte("id: 1\nevent: message\ndata: " + string(jsonBody(id)) + "\n\n")
	}
	for _, tc := range []struct {
		name   string
		ct     string
		body   func(string) []byte
		opts   func() *ClientOptions
		wantAE string
	}{
		{"json", "application/json", jsonBody, func() *ClientOptions { return &ClientOptions{} }, "gzip"},
		{"sse", "text/event-stream", sseBody, func() *ClientOptions { return &ClientOptions{} }, "gzip"},
		{"DisableCompression", "application/json", jsonBody, func() *ClientOptions {
			return &ClientOptions{Client: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
		}, ""},
		{"caller's Accept-Encoding", "application/json", jsonBody, func() *ClientOptions {
			return &ClientOptions{Header: http.Header{"Accept-Encoding": {"identity"}}}
		}, "identity"},
		{"own RoundTripper", "application/json", jsonBody, func() *ClientOptions {
			return &ClientOptions{Client: &http.Client{Transport: &mutatingTransport{rt: &http.Transport{}}}}
		}, "gzip"}, // asked for and decoded by net/http's Transport underneath
	} {
		t.Run(tc.name, func(t *testing.T) {
			saw := make(chan string, 1)
			resp, err := gzipCall(t, gzipServer(tc.ct, tc.body, saw), tc.opts())
			if err != nil || string(resp) != `{"jsonrpc":"2.0","id":7,"result":{"x":1}}` {
				t.Fatalf("%s, %v", resp, err)
			}
			if ae := <-saw; ae != tc.wantAE {
				t.Errorf("Accept-Encoding %q, want %q", ae, tc.wantAE)
			}
		})
	}
}

// A body that says gzip and is not, or one that decodes to more than
// MaxMessageSize, fails the call at once.
func TestGzipHostile(t *testing.T) {
	directLeaks(t)
	t.Run("not gzip", func(t *testing.T) {
		resp, err := gzipCall(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
		}, &ClientOptions{})
		if err != nil || !strings.Contains(string(resp), "gzip") || !strings.Contains(string(resp), `"error"`) {
			t.Fatalf("%s, %v", resp, err)
		}
	})
	t.Run("closed mid-body", func(t *testing.T) {
		z := gzipped(`{"jsonrpc":"2.0","id":7,"result":{"x":"` + strings.Repeat("ab", 4096) + `"}}`)
		resp, err := gzipCall(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", fmt.Sprint(len(z)))
			_, _ = w.Write(z[:len(z)/2])
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}, &ClientOptions{})
		if err != nil || !strings.Contains(string(resp), `"error"`) {
			t.Fatalf("%.200s, %v", resp, err)
		}
	})
	t.Run("bomb", func(t *testing.T) {
		bomb := gzipped(`{"jsonrpc":"2.0","id":7,"result":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`)
		resp, err := gzipCall(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb)
		}, &ClientOptions{MaxMessageSize: 64 << 10})
		if err != nil || !strings.Contains(string(resp), "too large") {
			t.Fatalf("%.200s, %v", resp, err)
		}
	})
}

// A gzip response without a body (202) is left as it is, as net/http
// left it; one with a body is decoded.
func TestGunzip(t *testing.T) {
	empty := &http.Response{Header: http.Header{"Content-Encoding": {"gzip"}}, Body: http.NoBody}
	gunzip(empty)
	if empty.Body != http.NoBody || empty.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("an empty body was wrapped")
	}
	z := gzipped("hello")
	resp := &http.Response{Header: http.Header{"Content-Encoding": {"GZip"}, "Content-Length": {fmt.Sprint(len(z))}}, ContentLength: int64(len(z)), Body: io.NopCloser(bytes.NewReader(z))}
	gunzip(resp)
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != "hello" || resp.ContentLength != -1 || !resp.Uncompressed || resp.Header.Get("Content-Length") != "" || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("%q, %v, %+v", got, err, resp)
	}
	if err := resp.Body.Close(); err != nil {
		t.Error(err)
	}
	if _, err := resp.Body.Read(make([]byte, 1)); err != http.ErrBodyReadAfterClose {
		t.Errorf("read after close: %v", err)
	}
}

// Close does not wait for a Read blocked on the network: the Read ends
// with the body's close.
func TestGzipBodyCloseDuringRead(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		zw := gzip.NewWriter(pw)
		_, _ = zw.Write([]byte("a"))
		_ = zw.Flush() // then the stream stays open
	}()
	b := &gzipBody{body: pr}
	buf := make([]byte, 8)
	if n, err := b.Read(buf); n != 1 || buf[0] != 'a' {
		t.Fatalf("%d, %v", n, err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := b.Read(buf)
		read <- err
	}()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err == nil {
		t.Fatal("a read of a closed body succeeded")
	}
	if _, err := b.Read(buf); err != http.ErrBodyReadAfterClose {
		t.Fatalf("read after close: %v", err)
	}
}
