package mcphttp_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// stubbornServer has a tool, hold, that reports progress once and then
// waits for release, ignoring its cancellation, as a tool still killing a
// process tree does.
func stubbornServer(release <-chan struct{}) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stubborn", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold", Description: "Holds past its cancellation."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Key string `json:"key"`
		}) (*mcp.CallToolResult, any, error) {
			if err := req.Progress(ctx, 1, 2, "holding "+in.Key); err != nil {
				return nil, nil, err
			}
			<-release
			return &mcp.CallToolResult{}, nil, nil
		})
	return srv
}

// The handlers of ended sessions keep counting against MaxInFlight until
// they return. A client repeating initialize, a long call it walks away
// from, and DELETE used to pile up handlers slow to honour their
// cancellation, each holding a goroutine, uncounted once its session
// ended: nothing but Shutdown waited for them. Now the flood is refused
// with 503 once MaxInFlight of them run, and their places come back as
// they return.
func TestHTTPEndedSessionHandlersCount(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	returned := make(chan string, 64)
	h := mcphttp.NewHandler(stubbornServer(release), &mcphttp.HandlerOptions{MaxInFlight: 2, Logger: quietLog})
	abandoned := make(chan struct{}, 8)
	h.OnAbandoned(func() { abandoned <- struct{}{} })
	ts := httptest.NewServer(returns(returned)(h))
	url := ts.URL + "/mcp"

	for range 2 {
		sid := openSession(t, url)
		await(t, returned, "initialize")
		startHold(t, url, sid, 1, abandoned) // stream 1 of a session of its own
		if code := deleteSession(t, url, sid); code != http.StatusNoContent {
			t.Fatalf("DELETE: %d", code)
		}
		await(t, returned, "DELETE")
	}
	// Two handlers of ended sessions still run: MaxInFlight is reached.
	resp := rawPost(t, url, initBody, nil)
	resp.Body.Close()
	await(t, returned, "the refused initialize")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("initialize while two ended sessions' handlers run, MaxInFlight 2: %s; want 503 with Retry-After", resp.Status)
	}
	close(release)
	await(t, returned, "a held POST to return")
	await(t, returned, "the other held POST to return")
	openSession(t, url) // their places came back
	await(t, returned, "initialize")
	if n := h.InFlight(); n != 0 {
		t.Fatalf("%d POSTs count against MaxInFlight with none in progress", n)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	http.DefaultClient.CloseIdleConnections()
	waitGoroutines(t, before)
}

// The count of POSTs in flight comes back to zero whatever order a walked
// away POST's abandonment, its session's end (DELETE, Shutdown) and its
// handler's return come in.
func TestHTTPAdriftCountRaces(t *testing.T) {
	release := make(chan struct{})
	h := mcphttp.NewHandler(holdServer(release, nil), &mcphttp.HandlerOptions{MaxInFlight: -1, Logger: quietLog})
	ts := httptest.NewServer(h)
	url := ts.URL + "/mcp"
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				resp := rawPost(t, url, initBody, nil)
				resp.Body.Close()
				sid := resp.Header.Get(mcphttp.HeaderSessionID)
				if sid == "" {
					t.Errorf("initialize: %s", resp.Status)
					return
				}
				call := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"key":"%d-%d"},"_meta":{"progressToken":1}}}`, w, i)
				resp = rawPost(t, url, call, sessionHeaders(sid))
				br := bufio.NewReader(resp.Body)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						t.Errorf("reading the call's stream: %v", err)
						break
					}
					if strings.Contains(line, "holding") {
						break
					}
				}
				resp.Body.Close() // walk away
				if i%4 != 3 {     // the others are left to Shutdown
					deleteSession(t, url, sid)
				}
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ts.Close() // waits for every request's ServeHTTP to return
	close(release)
	if n := h.InFlight(); n != 0 {
		t.Fatalf("%d POSTs count against MaxInFlight after all returned", n)
	}
}
