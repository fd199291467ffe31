package mcphttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// stalledDelete is a server with a session whose DELETE never answers
// until the test ends. deleted is closed when the DELETE has arrived.
func stalledDelete(t *testing.T) (url string, deleted <-chan struct{}) {
	t.Helper()
	release, seen := make(chan struct{}), make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case r.Method == http.MethodDelete:
			close(seen)
			<-release
			w.WriteHeader(http.StatusNoContent)
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "sess-1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // runs before ts.Close
	return ts.URL, seen
}

// initialized is a framer with the session of url open.
func initialized(t *testing.T, url string, opts *ClientOptions) *Framer {
	t.Helper()
	opts.NoListen = true
	f := newTestFramer(t, url, opts)
	if err := f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)); err != nil {
		t.Fatal(err)
	}
	readFrame(t, f)
	if f.SessionID() != "sess-1" {
		t.Fatalf("session %q", f.SessionID())
	}
	return f
}

// Close sends the DELETE that ends the session but waits for it only
// CloseTimeout: a server that never answers it cannot hold the caller.
// Before, Close waited 5 s for it.
func TestCloseDoesNotWaitForAStalledDelete(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait time.Duration
		max  time.Duration
	}{
		{"CloseTimeout", 100 * time.Millisecond, 2 * time.Second},
		{"default", 0, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, deleted := stalledDelete(t)
			f := initialized(t, url, &ClientOptions{CloseTimeout: tc.wait})
			start := time.Now()
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed > tc.max {
				t.Errorf("Close took %v against a stalled DELETE", elapsed)
			}
			select {
			case <-deleted:
			case <-time.After(5 * time.Second):
				t.Error("Close did not send the DELETE")
			}
		})
	}
}

// A negative CloseTimeout leaves the session to expire: Close sends no
// DELETE.
func TestCloseWithoutDelete(t *testing.T) {
	url, deleted := stalledDelete(t)
	f := initialized(t, url, &ClientOptions{CloseTimeout: -1})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-deleted:
		t.Error("a DELETE with a negative CloseTimeout")
	default:
	}
}
