package mcphttp_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// sseLines reads an SSE body line by line.
type sseLines struct {
	resp *http.Response
	br   *bufio.Reader
}

func (s *sseLines) next(t *testing.T) string {
	t.Helper()
	line, err := s.br.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the stream: %v (so far %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// event reads up to the end of the next event and returns its lines.
func (s *sseLines) event(t *testing.T) []string {
	t.Helper()
	var lines []string
	for {
		l := s.next(t)
		if l == "" {
			return lines
		}
		lines = append(lines, l)
	}
}

func openSSE(t *testing.T, method, url, body string, hdr map[string]string) *sseLines {
	t.Helper()
	var resp *http.Response
	if method == http.MethodPost {
		resp = rawPost(t, url, body, hdr)
	} else {
		req, _ := http.NewRequest(method, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		var err error
		if resp, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		t.Fatalf("%s: %s %s", method, resp.Status, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &sseLines{resp: resp, br: bufio.NewReader(resp.Body)}
}

// A tool call in a 2025-11-25 session streams: a priming event with an id
// and the retry hint, then progress, then the result, each with an id
// naming the stream and the position.
func TestHTTPSSEFraming(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{Retry: 1500 * time.Millisecond})
	sid := openSession(t, url)
	hdr := map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125}
	s := openSSE(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"steps":2},"_meta":{"progressToken":"p"}}}`, hdr)
	if got := strings.Join(s.event(t), "|"); got != "id: 1_0|retry: 1500|data: " {
		t.Fatalf("priming event %q", got)
	}
	for i, want := range []string{`"progress":1`, `"progress":2`, `"result"`} {
		ev := s.event(t)
		if len(ev) != 3 || ev[0] != "id: 1_"+string(rune('1'+i)) || ev[1] != "event: message" || !strings.Contains(ev[2], want) {
			t.Fatalf("event %d: %q", i+1, ev)
		}
	}
	if _, err := s.br.ReadByte(); err == nil {
		t.Fatal("the stream goes on after the response")
	}
}

// Idle streams carry keep-alive comments.
func TestHTTPKeepAlive(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{KeepAlive: 5 * time.Millisecond})
	sid := openSession(t, url)
	s := openSSE(t, http.MethodGet, url, "", map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125})
	if got := s.event(t); len(got) != 3 || got[0] != "id: 0_0" {
		t.Fatalf("priming event %q", got)
	}
	if got := s.next(t); got != ": keep-alive" {
		t.Fatalf("idle stream sent %q", got)
	}
}

// A client that lost the GET stream resumes it with Last-Event-ID and gets
// what was sent meanwhile; a second concurrent reader is refused.
func TestHTTPResumeStandaloneStream(t *testing.T) {
	srv := httpTestServer()
	_, url := serveHTTP(t, srv, nil)
	sid := openSession(t, url)
	hdr := map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125}
	// The session must be initialized for list changes to reach it.
	resp := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	resp.Body.Close()
	first := openSSE(t, http.MethodGet, url, "", hdr)
	if got := first.event(t); got[0] != "id: 0_0" {
		t.Fatalf("priming %q", got)
	}
	second := rawGet(t, url, hdr)
	second.Body.Close()
	if second.StatusCode != http.StatusConflict {
		t.Fatalf("second GET: %s", second.Status)
	}
	first.resp.Body.Close()
	srv.RemoveTools("ask")
	// The server notices the dropped stream when it next writes or when the
	// connection closes; until then a new reader is refused with 409.
	resumeHdr := map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125, "Last-Event-ID": "0_0"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		r := rawGet(t, url, resumeHdr)
		if r.StatusCode == http.StatusConflict && ctx.Err() == nil {
			r.Body.Close()
			continue
		}
		if r.StatusCode != http.StatusOK {
			t.Fatalf("resuming GET: %s", r.Status)
		}
		s := &sseLines{resp: r, br: bufio.NewReader(r.Body)}
		defer r.Body.Close()
		ev := s.event(t)
		if len(ev) != 3 || ev[0] != "id: 0_1" || !strings.Contains(ev[2], "notifications/tools/list_changed") {
			t.Fatalf("resumed event %q", ev)
		}
		return
	}
}

// A Last-Event-ID past the last event a stream sent is refused with 410:
// resuming after it would skip the events up to it unseen. One equal to
// the last event sent is a valid resume point.
func TestHTTPResumeBeyondTheLastEvent(t *testing.T) {
	srv := httpTestServer()
	_, url := serveHTTP(t, srv, nil)
	sid := openSession(t, url)
	for _, last := range []string{"0_1", "0_5", "0_9223372036854775807", "0_99999999999999999999999"} {
		r := rawGet(t, url, map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125, "Last-Event-ID": last})
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusGone || !strings.Contains(string(b), "has not sent") {
			t.Fatalf("Last-Event-ID %s: %s %s, want 410", last, r.Status, b)
		}
	}
	r := rawGet(t, url, map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125, "Last-Event-ID": "0_0"})
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("Last-Event-ID 0_0: %s", r.Status)
	}
}

func rawGet(t *testing.T, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// JSONResponse never streams; stateless calls without progress answer JSON.
func TestHTTPJSONResponse(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{JSONResponse: true})
	sid := openSession(t, url)
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"steps":2},"_meta":{"progressToken":"p"}}}`,
		map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125})
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
}
