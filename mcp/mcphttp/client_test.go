package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// quiet drops the framer's diagnostics.
var quiet = slog.New(slog.DiscardHandler)

// seenRequest is what a fake server saw of one request.
type seenRequest struct {
	method string
	header http.Header
	body   string
}

type fakeServer struct {
	mu   sync.Mutex
	seen []seenRequest
}

func (s *fakeServer) record(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{r.Method, r.Header.Clone(), string(b)})
	s.mu.Unlock()
	return string(b)
}

func (s *fakeServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

func newTestFramer(t *testing.T, url string, opts *ClientOptions) *Framer {
	t.Helper()
	if opts == nil {
		opts = &ClientOptions{}
	}
	opts.Logger = quiet
	if opts.RetryDelay == 0 {
		opts.RetryDelay = time.Millisecond
	}
	f, err := NewFramer(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readFrame(t *testing.T, f transport.Framer) string {
	t.Helper()
	b, err := f.ReadFrame()
	if err != nil {
		t.Fatalf("ReadFrame: %v", err)
	}
	return string(b)
}

// The framer keeps the session and negotiated version from initialize,
// tolerates a server without a GET stream, derives the stateless headers
// from each message, adds static headers, and deletes the session on Close.
func TestHTTPFramerHeaders(t *testing.T) {
	fs := &fakeServer{}
	getDone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := fs.record(r)
		switch {
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
			close(getDone)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		case strings.Contains(body, `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "sess-1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
		case strings.Contains(body, `"id"`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer ts.Close()
	f := newTestFramer(t, ts.URL, &ClientOptions{Header: http.Header{"Authorization": {"Bearer t"}}})
	if err := f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)); err != nil {
		t.Fatal(err)
	}
	if got := readFrame(t, f); !strings.Contains(got, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize response %s", got)
	}
	if f.SessionID() != "sess-1" || f.ProtocolVersion() != "2025-06-18" {
		t.Fatalf("session %q version %q", f.SessionID(), f.ProtocolVersion())
	}
	if err := f.WriteFrame([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	<-getDone // the listening GET was refused with 405: tolerated
	if err := f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"naïve tool","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)); err != nil {
		t.Fatal(err)
	}
	readFrame(t, f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	seen := fs.requests()
	byKind := map[string]seenRequest{}
	for _, r := range seen {
		key := r.method
		if r.method == http.MethodPost {
			var m struct{ Method string }
			json.Unmarshal([]byte(r.body), &m)
			key = m.Method
		}
		byKind[key] = r
		if r.header.Get("Authorization") != "Bearer t" {
			t.Errorf("%s without the static header", key)
		}
	}
	check := func(kind, header, want string) {
		t.Helper()
		r, ok := byKind[kind]
		if !ok {
			t.Fatalf("no %s request among %d", kind, len(seen))
		}
		if got := r.header.Get(header); got != want {
			t.Errorf("%s: %s = %q, want %q", kind, header, got, want)
		}
	}
	check("initialize", "Mcp-Session-Id", "")
	check("initialize", "Accept", "application/json, text/event-stream")
	check("notifications/initialized", "Mcp-Session-Id", "sess-1")
	check("notifications/initialized", "Mcp-Protocol-Version", "2025-06-18")
	check(http.MethodGet, "Mcp-Session-Id", "sess-1")
	check(http.MethodGet, "Accept", "text/event-stream")
	check("tools/call", "Mcp-Protocol-Version", "2026-07-28")
	check("tools/call", "Mcp-Method", "tools/call")
	check("tools/call", "Mcp-Name", "=?base64?bmHDr3ZlIHRvb2w=?=")
	check(http.MethodDelete, "Mcp-Session-Id", "sess-1")
}

// An SSE response cut off before its result is resumed with a GET that
// names the last event seen, after the server's retry hint.
func TestHTTPFramerResumesStream(t *testing.T) {
	fs := &fakeServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := fs.record(r)
		switch {
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-Id") == "":
			w.WriteHeader(http.StatusMethodNotAllowed) // no standalone stream
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 1_2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\n")
			io.WriteString(w, "data: \"result\":{\"done\":true}}\n\n")
		case strings.Contains(body, `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 1_0\nretry: 1\ndata: \n\n")
			io.WriteString(w, ": keep-alive\n\n")
			io.WriteString(w, "id: 1_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\n\n")
			// and the connection drops before the response
		}
	}))
	defer ts.Close()
	f := newTestFramer(t, ts.URL, &ClientOptions{RetryDelay: time.Hour}) // only the server's hint can make this finish
	defer f.Close()
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	readFrame(t, f)
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}`))
	if got := readFrame(t, f); !strings.Contains(got, "notifications/progress") {
		t.Fatalf("first frame %s", got)
	}
	if got := readFrame(t, f); got != "{\"jsonrpc\":\"2.0\",\"id\":5,\n\"result\":{\"done\":true}}" {
		t.Fatalf("resumed frame %q", got)
	}
	var resumed bool
	for _, r := range fs.requests() {
		resumed = resumed || (r.method == http.MethodGet && r.header.Get("Last-Event-Id") == "1_1" && r.header.Get("Mcp-Session-Id") == "s")
	}
	if !resumed {
		t.Fatalf("no GET with Last-Event-ID 1_1: %+v", fs.requests())
	}
}

// A resumption the server refuses (410: it dropped the stream) fails the
// call with the server's reason, not a generic "stream ended".
func TestHTTPFramerResumeGone(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGone)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"gone: stream \"1\" is not retained"}}`)
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 1_0\nretry: 1\ndata: \n\n")
		}
	}))
	defer ts.Close()
	f := newTestFramer(t, ts.URL, &ClientOptions{NoListen: true})
	defer f.Close()
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	readFrame(t, f)
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}`))
	if got := readFrame(t, f); !strings.Contains(got, `"id":5,"error":{"code":-32600,"message":"gone: stream \"1\" is not retained"`) {
		t.Fatalf("resumption refused with 410: %s", got)
	}
}

// HTTP refusals become JSON-RPC errors of the request that met them, and
// a 404 in a session ends the connection with ErrSessionExpired.
func TestHTTPFramerErrors(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
		case strings.Contains(string(body), `"bad"`):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"header mismatch"}}`)
		case strings.Contains(string(body), `"teapot"`):
			w.WriteHeader(http.StatusTeapot)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer ts.Close()
	f := newTestFramer(t, ts.URL, &ClientOptions{NoListen: true})
	defer f.Close()
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	readFrame(t, f)
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":"b","method":"bad"}`))
	if got := readFrame(t, f); got != `{"jsonrpc":"2.0","id":"b","error":{"code":-32020,"message":"header mismatch"}}` {
		t.Fatalf("400: %s", got)
	}
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":3,"method":"teapot"}`))
	if got := readFrame(t, f); !strings.Contains(got, `"id":3,"error":{"code":-32603,"message":"mcphttp: HTTP 418 I'm a teapot`) {
		t.Fatalf("418: %s", got)
	}
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`))
	_, err := f.ReadFrame()
	var expired *SessionExpiredError
	if !errors.Is(err, ErrSessionExpired) || !errors.As(err, &expired) || expired.SessionID != "s" || expired.Method != "POST" {
		t.Fatalf("after 404: %v", err)
	}
	if err := f.WriteFrame([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("write after expiry: %v", err)
	}
}

// An event larger than the limit is reported as *transport.TooLargeError and the
// stream goes on.
func TestHTTPFramerTooLarge(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":\""+strings.Repeat("a", 500)+"\"}\n\n")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":1}\n\n")
	}))
	defer ts.Close()
	f := newTestFramer(t, ts.URL, &ClientOptions{MaxMessageSize: 100, NoListen: true})
	defer f.Close()
	f.WriteFrame([]byte(`{"jsonrpc":"2.0","id":9,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	_, err := f.ReadFrame()
	var tl *transport.TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 100 || tl.Size != int64(len(`{"jsonrpc":"2.0","id":9,"result":"`)+500+2) || !strings.HasPrefix(string(tl.Head), `{"jsonrpc":"2.0","id":9`) {
		t.Fatalf("oversized event: %v %+v", err, tl)
	}
	if got := readFrame(t, f); got != `{"jsonrpc":"2.0","id":9,"result":1}` {
		t.Fatalf("next event %q", got)
	}
}
