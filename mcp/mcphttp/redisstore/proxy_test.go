package redisstore

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The rig's proxy must carry a stream that starts as soon as the request
// body arrives to its end: a stateless tools/call with a progress token
// answers with its first progress event at once, and the result later.
// Streamed through unbuffered, the proxy's Transport lost the replica's
// connection after the first event in a fraction of runs.
func TestRoundRobinEarlyStream(t *testing.T) {
	release := make(chan struct{}, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The stream starts before the body is read: the narrowest
		// window a fast replica leaves, made wide.
		rc := http.NewResponseController(w)
		if err := rc.EnableFullDuplex(); err != nil {
			t.Errorf("full duplex: %v", err)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"method\":\"notifications/progress\"}\n\n")
		rc.Flush()
		if _, err := io.ReadAll(r.Body); err != nil {
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "data: {\"id\":1,\"result\":{}}\n\n")
	}))
	defer backend.Close()
	u, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(newRoundRobin([]*url.URL{u, u}, func(int) bool { return false }))
	defer proxy.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"p"}}}`
	for i := range 50 {
		// A body the client does not hold in memory goes out after the
		// header, in a write of its own, as a browser's or Node's does.
		req, err := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", io.NopCloser(strings.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		first, err := br.ReadString('\n')
		if err != nil || !strings.Contains(first, "progress") {
			t.Fatalf("run %d: first event %q, %v", i, first, err)
		}
		select {
		case release <- struct{}{}:
		default: // the backend gave up on a cut stream already
		}
		rest, err := io.ReadAll(br)
		resp.Body.Close()
		if err != nil || !strings.Contains(string(rest), `"result"`) {
			t.Fatalf("run %d: the stream ended without its result: %q, %v", i, rest, err)
		}
	}
}
