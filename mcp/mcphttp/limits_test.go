package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// fakeClock is the handler's clock in tests of timeouts.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1e9, 0)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// holdServer has a tool, hold, that reports progress once and then waits
// for release (or its cancellation, which it reports on cancelled).
func holdServer(release <-chan struct{}, cancelled chan<- string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hold", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold", Description: "Holds."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Key string `json:"key"`
		}) (*mcp.CallToolResult, any, error) {
			if err := req.Progress(ctx, 1, 2, "holding "+in.Key); err != nil {
				return nil, nil, err
			}
			select {
			case <-release:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released " + in.Key}}}, nil, nil
			case <-ctx.Done():
				if cancelled != nil {
					cancelled <- in.Key
				}
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "flood", Description: "Reports large progress many times."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			msg := strings.Repeat("f", 64<<10)
			for i := range 1000 {
				if err := req.Progress(ctx, float64(i), 1000, msg); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{}, nil, nil
		})
	return srv
}

// returns wraps a handler to report each request as it returns.
func returns(ch chan<- string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			ch <- r.Method
		})
	}
}

func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func sessionHeaders(sid string) map[string]string {
	return map[string]string{mcphttp.HeaderSessionID: sid, mcphttp.HeaderProtocolVersion: mcp.Version20251125}
}

// startHold calls hold in session sid on an SSE stream, reads up to its
// progress event (stream n, event 1) and walks away. The call keeps
// running on its POST's goroutine; abandoned hears when the POST has let
// go of the session (Handler.OnAbandoned).
func startHold(t *testing.T, url, sid string, n int, abandoned <-chan struct{}) {
	t.Helper()
	s := openSSE(t, http.MethodPost, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{"key":"%d"},"_meta":{"progressToken":%d}}}`, 100+n, n, n), sessionHeaders(sid))
	if ev := s.event(t); ev[0] != fmt.Sprintf("id: %d_0", n) {
		t.Fatalf("priming event %q", ev)
	}
	if ev := s.event(t); ev[0] != fmt.Sprintf("id: %d_1", n) || !strings.Contains(ev[2], "notifications/progress") {
		t.Fatalf("progress event %q", ev)
	}
	s.resp.Body.Close()
	await(t, abandoned, "the abandoned POST to let go of its session")
}

func initialized(t *testing.T, url, sid string, returned <-chan string) {
	t.Helper()
	resp := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid))
	resp.Body.Close()
	await(t, returned, "notifications/initialized")
}

// Streams abandoned by their clients are kept for resumption up to
// MaxRetainedStreams, the one left longest ago dropped first; resuming a
// dropped stream gets 410 Gone (it used to fall back silently to the GET
// stream), while a retained one resumes and delivers its result.
func TestHTTPResumeDroppedStream(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan string, 16)
	h, url := serveHTTPWrapped(t, holdServer(release, nil), &mcphttp.HandlerOptions{MaxRetainedStreams: 1}, returns(returned))
	abandoned := make(chan struct{}, 16)
	h.OnAbandoned(func() { abandoned <- struct{}{} })
	sid := openSession(t, url)
	await(t, returned, "initialize")
	initialized(t, url, sid, returned)
	for n := 1; n <= 3; n++ {
		startHold(t, url, sid, n, abandoned)
	}
	for _, gone := range []string{"1_1", "2_1"} {
		if status, msg := resumeRefusal(t, url, sid, gone); status != http.StatusGone || !strings.Contains(msg, "not retained") {
			t.Fatalf("resuming dropped stream %s: %d %q", gone, status, msg)
		}
	}
	hdr := sessionHeaders(sid)
	hdr["Last-Event-ID"] = "3_1"
	s := openSSE(t, http.MethodGet, url, "", hdr)
	close(release) // the three calls return; only 3's result has a stream
	if ev := s.event(t); len(ev) != 3 || ev[0] != "id: 3_2" || !strings.Contains(ev[2], "released 3") {
		t.Fatalf("resumed stream 3 sent %q", ev)
	}
}

// resumeRefusal GETs session sid's stream after Last-Event-ID last, which
// the server must refuse, and returns the status and the error's message.
func resumeRefusal(t *testing.T, url, sid, last string) (int, string) {
	t.Helper()
	hdr := sessionHeaders(sid)
	hdr["Last-Event-ID"] = last
	resp := rawGet(t, url, hdr)
	defer resp.Body.Close()
	var reply rpcReply
	_ = json.NewDecoder(resp.Body).Decode(&reply)
	if reply.Error == nil {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, reply.Error.Message
}

// A Last-Event-ID naming an event its stream has not sent yet is refused
// (410, as an id naming nothing this server sent): served from there, the client would miss every event up to it
// once they came. Before, the stream was resumed after it. Events it has
// sent resume as before.
func TestHTTPResumeFutureEventRefused(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan string, 16)
	h, url := serveHTTPWrapped(t, holdServer(release, nil), nil, returns(returned))
	abandoned := make(chan struct{}, 16)
	h.OnAbandoned(func() { abandoned <- struct{}{} })
	sid := openSession(t, url)
	await(t, returned, "initialize")
	initialized(t, url, sid, returned)
	startHold(t, url, sid, 1, abandoned) // stream 1 has sent events 0 and 1
	for _, future := range []string{"1_2", "1_99", "1_9223372036854775807"} {
		if status, msg := resumeRefusal(t, url, sid, future); status != http.StatusGone || !strings.Contains(msg, "has not sent") {
			t.Fatalf("resuming after event %s, not sent yet: %d %q", future, status, msg)
		}
	}
	hdr := sessionHeaders(sid)
	hdr["Last-Event-ID"] = "1_1"
	s := openSSE(t, http.MethodGet, url, "", hdr)
	close(release)
	if ev := s.event(t); len(ev) != 3 || ev[0] != "id: 1_2" || !strings.Contains(ev[2], "released 1") {
		t.Fatalf("resumed stream 1 sent %q", ev)
	}
}

// A legacy session with no HTTP request in progress closes after
// SessionTimeout, 10 minutes unless configured, and the calls still
// running in it are cancelled: a client that walked away keeps nothing
// alive. A session with an open GET stream stays.
func TestHTTPSessionIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{{"default", 0, mcphttp.DefaultSessionTimeout}, {"configured", time.Minute, time.Minute}} {
		t.Run(tc.name, func(t *testing.T) {
			cancelled := make(chan string, 1)
			returned := make(chan string, 16)
			clock := newFakeClock()
			h, url := serveHTTPWrapped(t, holdServer(make(chan struct{}), cancelled), &mcphttp.HandlerOptions{SessionTimeout: tc.timeout}, returns(returned))
			h.SetClock(clock.now)
			abandoned := make(chan struct{}, 16)
			h.OnAbandoned(func() { abandoned <- struct{}{} })
			sid := openSession(t, url)
			await(t, returned, "initialize")
			initialized(t, url, sid, returned)
			startHold(t, url, sid, 1, abandoned)
			watched := openSession(t, url)
			await(t, returned, "initialize")
			openSSE(t, http.MethodGet, url, "", sessionHeaders(watched))

			clock.advance(tc.want - time.Second)
			h.ExpireSessions()
			if n := h.SessionCount(); n != 2 {
				t.Fatalf("%d sessions before the timeout, want 2", n)
			}
			clock.advance(time.Second)
			h.ExpireSessions()
			if n := h.SessionCount(); n != 1 {
				t.Fatalf("%d sessions after the timeout, want 1 (the one with a GET stream)", n)
			}
			if key := await(t, cancelled, "the expired session's call to be cancelled"); key != "1" {
				t.Fatalf("cancelled %q", key)
			}
			resp := rawPost(t, url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, sessionHeaders(sid))
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("request to the expired session: %s", resp.Status)
			}
		})
	}
}

// MaxSessions: an initialize beyond it gets 503, Retry-After when the
// idlest session expires, and a JSON-RPC error under its id; a DELETE or
// an expiry makes room. Existing sessions are never evicted for it.
func TestHTTPMaxSessions(t *testing.T) {
	clock := newFakeClock()
	h, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{MaxSessions: 2, SessionTimeout: time.Minute})
	h.SetClock(clock.now)
	first := openSession(t, url)
	openSession(t, url)
	clock.advance(15 * time.Second)
	resp := rawPost(t, url, initBody, nil)
	var reply rpcReply
	_ = json.NewDecoder(resp.Body).Decode(&reply)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "45" || string(reply.ID) != "1" ||
		reply.Error == nil || reply.Error.Code != mcp.CodeInternalError || !strings.Contains(reply.Error.Message, "sessions are open") {
		t.Fatalf("initialize over MaxSessions: %s Retry-After %q, %s %+v", resp.Status, resp.Header.Get("Retry-After"), reply.ID, reply.Error)
	}
	if resp.Header.Get(mcphttp.HeaderSessionID) != "" || h.SessionCount() != 2 {
		t.Fatalf("a refused initialize named session %q; %d sessions", resp.Header.Get(mcphttp.HeaderSessionID), h.SessionCount())
	}
	if code := deleteSession(t, url, first); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	openSession(t, url)
	clock.advance(time.Minute)
	openSession(t, url) // the two idle past the timeout are closed first
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions; want only the new one", n)
	}
}

// Bodies being read at once share MaxBodyMemory: while one large body
// trickles in (holding what it has sent, in steps of 64 KiB at first),
// another that does not fit beside it waits BodyWait and gets 503 with
// Retry-After, with the rest of its body unread; a small one that fits is
// served.
func TestHTTPConcurrentBodies(t *testing.T) {
	const limit = 1 << 20
	returned := make(chan string, 4)
	h, url := serveHTTPWrapped(t, httpTestServer(), &mcphttp.HandlerOptions{MaxBodyBytes: limit, MaxBodyMemory: limit + 4096, BodyWait: 50 * time.Millisecond}, returns(returned))
	tr := &http.Transport{ExpectContinueTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	post := func(body io.Reader, size int64) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, url, body)
		req.ContentLength = size
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		// The body goes out only once the handler starts reading it, that
		// is, once it has reserved its bytes.
		req.Header.Set("Expect", "100-continue")
		return hc.Do(req)
	}
	pr, pw := io.Pipe()
	first := make(chan error, 1)
	go func() {
		resp, err := post(pr, limit)
		if err == nil {
			resp.Body.Close()
		}
		first <- err
	}()
	if _, err := pw.Write([]byte(`{"jsonrpc":"2.0",`)); err != nil {
		t.Fatal(err)
	}
	if got := h.BodyBytesInUse(); got != 64<<10 {
		t.Fatalf("a trickling body that sent 17 bytes holds %d bytes of the budget, want %d (its first step)", got, 64<<10)
	}
	resp, err := post(strings.NewReader(strings.Repeat(" ", limit)), limit)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("a second large body while the first is read: %s, Retry-After %q", resp.Status, resp.Header.Get("Retry-After"))
	}
	small := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	resp, err = post(strings.NewReader(small), int64(len(small)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a small body alongside: %s", resp.Status)
	}
	pw.CloseWithError(io.ErrUnexpectedEOF)
	await(t, first, "the trickling POST")
	for range 3 {
		await(t, returned, "the POSTs to return")
	}
	if got := h.BodyBytesInUse(); got != 0 {
		t.Fatalf("%d body bytes still reserved after every body was read", got)
	}
}

// A body sent slowly (slowloris) is cut off after BodyTimeout with 408
// and the connection closed, and so is the unread body of a refusal;
// neither holds a connection indefinitely.
func TestHTTPSlowBody(t *testing.T) {
	_, url := serveHTTP(t, httpTestServer(), &mcphttp.HandlerOptions{BodyTimeout: 200 * time.Millisecond})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	for _, tc := range []struct{ name, host, status string }{
		{"slow body", addr, "408"},
		{"refused with a slow body", "evil.example.com", "403"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", tc.host)
			br := bufio.NewReader(conn)
			line, err := br.ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "HTTP/1.1 "+tc.status) {
				t.Fatalf("status line %q, %v; want %s", line, err, tc.status)
			}
			if _, err := io.Copy(io.Discard, br); err != nil {
				t.Fatalf("the connection stays open: %v", err)
			}
		})
	}
}

// A client that stops reading its stream is cut off after WriteTimeout:
// the POST returns instead of blocking forever on a full socket.
func TestHTTPWriteTimeout(t *testing.T) {
	returned := make(chan string, 4)
	_, url := serveHTTPWrapped(t, holdServer(nil, nil), &mcphttp.HandlerOptions{WriteTimeout: 200 * time.Millisecond}, returns(returned))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":1,` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp := rawPost(t, url, body, map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "flood"})
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("flood answered %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	await(t, returned, "the POST whose client stopped reading to return")
}

// An http.Server ReadTimeout, as the example servers set, does not cut
// what outlives it: the handler replaces the read deadline with
// BodyTimeout and lifts it once the body is read, so a GET stream keeps
// streaming and a slow call still answers.
func TestHTTPServerReadTimeoutSparesStreams(t *testing.T) {
	release := make(chan struct{})
	h := mcphttp.NewHandler(holdServer(release, nil), &mcphttp.HandlerOptions{Logger: quietLog, KeepAlive: 300 * time.Millisecond, BodyTimeout: 100 * time.Millisecond})
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ReadTimeout = 50 * time.Millisecond
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		ts.Close()
	})
	url := ts.URL + "/mcp"
	sid := openSession(t, url)
	resp := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid))
	resp.Body.Close()
	get := openSSE(t, http.MethodGet, url, "", sessionHeaders(sid))
	get.event(t) // priming
	if line := get.next(t); line != ": keep-alive" {
		t.Fatalf("the GET stream after ReadTimeout: %q", line)
	}
	post := openSSE(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"key":"slow"},"_meta":{"progressToken":1}}}`, sessionHeaders(sid))
	post.event(t) // priming
	post.event(t) // progress
	for {         // past ReadTimeout, which keep-alives show
		if line := post.next(t); line == ": keep-alive" {
			break
		}
	}
	close(release)
	for {
		ev := post.event(t)
		if len(ev) == 3 && strings.Contains(ev[2], "released slow") {
			return
		}
		if len(ev) != 0 && ev[0] != ": keep-alive" {
			t.Fatalf("the slow call's stream sent %q", ev)
		}
	}
}
