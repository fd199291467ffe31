package mcphttp_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// TestHTTPMaxInFlight: calls that hold (a long tool call) are bounded over
// stateless requests and sessions together. Before MaxInFlight nothing
// bounded them: every stateless POST is a session of its own, so
// MaxSessions did not apply, and one legacy session could POST any
// number of calls.
func TestHTTPMaxInFlight(t *testing.T) {
	release := make(chan struct{})
	_, url := serveHTTP(t, holdServer(release, nil), &mcphttp.HandlerOptions{MaxInFlight: 3})
	stateless := func(string) map[string]string {
		return map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "hold"}
	}
	until := func(s *sseLines, text string) {
		t.Helper()
		for {
			if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], text) {
				return
			}
		}
	}
	sid := openSession(t, url) // before the calls hold every place
	call := func(id int, key string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"hold","arguments":{"key":"` + key + `"},"_meta":{"progressToken":1,` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	}
	var held []*sseLines
	for i := range 3 {
		s := openSSE(t, http.MethodPost, url, call(i+1, "k"+strconv.Itoa(i)), stateless("k"))
		until(s, "holding k"+strconv.Itoa(i))
		held = append(held, s)
	}
	resp := rawPost(t, url, call(9, "over"), stateless("over"))
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a fourth call while three hold: %s Retry-After %q; want 503 with Retry-After", resp.Status, resp.Header.Get("Retry-After"))
	}
	resp = rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid))
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a session's POST while three hold: %s; want 503", resp.Status)
	}
	close(release)
	for _, s := range held {
		until(s, "released")
		// The end of the body comes after the handler returned.
		if _, err := io.Copy(io.Discard, s.br); err != nil {
			t.Fatal(err)
		}
	}
	// Room again once they answered.
	resp = rawPost(t, url, call(10, "after"), stateless("after"))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a call after the others answered: %s", resp.Status)
	}
}
