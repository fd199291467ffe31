package mcphttp

import (
	"context"
	"net/http"
	"testing"
)

// A framer given no client keeps enough idle connections for calls in
// flight at once: http.DefaultTransport's 2 would open and close a
// connection for most of 64 concurrent calls.
func TestDefaultClientKeepsIdleConnections(t *testing.T) {
	f, err := NewFramer(context.Background(), "http://127.0.0.1:1/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, ok := f.client.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T, want a tuned *http.Transport", f.client.Transport)
	}
	if tr.MaxIdleConnsPerHost < DefaultMaxIdleConnsPerHost || tr == http.DefaultTransport {
		t.Fatalf("MaxIdleConnsPerHost %d, want %d on a clone of http.DefaultTransport", tr.MaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost)
	}
	if tr.Proxy == nil {
		t.Fatal("the clone lost http.DefaultTransport's proxy from the environment")
	}
}
