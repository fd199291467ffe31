package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// statelessHold is a stateless call of hold under key, and the headers of its
// POST with token tok ("" for none).
func statelessHold(id int, key, tok string) (string, map[string]string) {
	hdr := map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/call", mcphttp.HeaderName: "hold"}
	if tok != "" {
		hdr["Authorization"] = "Bearer " + tok
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{"key":%q},"_meta":{"progressToken":1,`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, key), hdr
}

// holding starts a stateless hold call as tok and reads its stream up to
// the progress that says it holds.
func holding(t *testing.T, url string, id int, key, tok string) *sseLines {
	t.Helper()
	body, hdr := statelessHold(id, key, tok)
	s := openSSE(t, http.MethodPost, url, body, hdr)
	for {
		if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], "holding "+key) {
			return s
		}
	}
}

// postAs posts body as tok with hdr and returns the status, Retry-After
// and the JSON-RPC error.
func postAs(t *testing.T, url, body string, hdr map[string]string) (int, string, *rpcReply) {
	t.Helper()
	resp := rawPost(t, url, body, hdr)
	defer resp.Body.Close()
	var reply rpcReply
	_ = json.NewDecoder(resp.Body).Decode(&reply)
	return resp.StatusCode, resp.Header.Get("Retry-After"), &reply
}

// finish reads a held call's stream to its end: the end of the body comes
// after its handler returned.
func finish(t *testing.T, s *sseLines) {
	t.Helper()
	if _, err := io.Copy(io.Discard, s.br); err != nil {
		t.Fatal(err)
	}
}

// One authenticated user cannot take every MaxInFlight place: past
// MaxInFlightPerSubject its POSTs (stateless or of its sessions, through
// any of its OAuth clients) get 429 with Retry-After and a JSON-RPC
// error, before their bodies are read, while another user is still
// served. Before, mallory's held calls took all MaxInFlight places and
// alice got 503.
func TestHTTPMaxInFlightPerSubject(t *testing.T) {
	release := make(chan struct{})
	h, url := serveHTTPWrapped(t, holdServer(release, nil), &mcphttp.HandlerOptions{MaxInFlight: 4, MaxInFlightPerSubject: 2}, withAuth)
	mallory := &mcphttp.AuthInfo{Subject: "mallory"}
	sid := mustInitialize(t, url, "mallory.c1")
	held := []*sseLines{holding(t, url, 1, "m1", "mallory.c1"), holding(t, url, 2, "m2", "mallory.c2")}
	body, hdr := statelessHold(3, "m3", "mallory.c3")
	status, retry, reply := postAs(t, url, body, hdr)
	if status != http.StatusTooManyRequests || retry == "" || reply.Error == nil || reply.Error.Code != mcp.CodeInvalidRequest ||
		!strings.Contains(reply.Error.Message, "MaxInFlightPerSubject") {
		t.Fatalf("mallory's third call: %d Retry-After %q %+v; want 429 with Retry-After and a -32600 naming the bound", status, retry, reply.Error)
	}
	shdr := sessionHeaders(sid)
	shdr["Authorization"] = "Bearer mallory.c1"
	if status, _, _ := postAs(t, url, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, shdr); status != http.StatusTooManyRequests {
		t.Fatalf("a ping of mallory's session while two of her calls hold: %d; want 429", status)
	}
	held = append(held, holding(t, url, 5, "a1", "alice.c1")) // another user is still served
	if n := h.InFlightOf(mallory); n != 2 {
		t.Fatalf("mallory has %d POSTs counted after her refusals, want 2", n)
	}
	close(release)
	for _, s := range held {
		finish(t, s)
	}
	if status, _, reply := postAs(t, url, `{"jsonrpc":"2.0","id":6,"method":"ping"}`, shdr); status != http.StatusOK {
		t.Fatalf("a ping of mallory's session once her calls answered: %d %+v", status, reply.Error)
	}
	if n, alice := h.InFlightOf(mallory), h.InFlightOf(&mcphttp.AuthInfo{Subject: "alice"}); n != 0 || alice != 0 {
		t.Fatalf("%d and %d POSTs counted for mallory and alice with none in progress", n, alice)
	}
}

// The default bound is a quarter of MaxInFlight, at least 1; none when
// MaxInFlight or MaxInFlightPerSubject is negative; and requests without
// authorization are not counted per subject.
func TestHTTPMaxInFlightPerSubjectDefaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  mcphttp.HandlerOptions
		auth  bool
		limit int // 0: none within 3 calls
	}{
		{"a quarter of MaxInFlight", mcphttp.HandlerOptions{MaxInFlight: 8}, true, 2},
		{"at least 1", mcphttp.HandlerOptions{MaxInFlight: 2}, true, 1},
		{"no MaxInFlight", mcphttp.HandlerOptions{MaxInFlight: -1}, true, 0},
		{"off", mcphttp.HandlerOptions{MaxInFlight: 8, MaxInFlightPerSubject: -1}, true, 0},
		{"no identity", mcphttp.HandlerOptions{MaxInFlight: 8, MaxInFlightPerSubject: 1}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			var wrap func(http.Handler) http.Handler
			tok := ""
			if tc.auth {
				wrap, tok = withAuth, "mallory.c"
			}
			_, url := serveHTTPWrapped(t, holdServer(release, nil), &tc.opts, wrap)
			var held []*sseLines
			n := tc.limit
			if n == 0 {
				n = 3
			}
			for i := range n {
				held = append(held, holding(t, url, i+1, fmt.Sprint(i), tok))
			}
			if tc.limit > 0 {
				body, hdr := statelessHold(9, "over", tok)
				if status, _, _ := postAs(t, url, body, hdr); status != http.StatusTooManyRequests {
					t.Fatalf("a call past %d: %d; want 429", tc.limit, status)
				}
			}
			close(release)
			for _, s := range held {
				finish(t, s)
			}
		})
	}
}

// A user's POSTs whose clients walked away follow MaxInFlight's rules:
// they stop counting against the user while their legacy session lives,
// and count again from its end until their handlers return, so handlers
// that ignore their cancellation cannot pile up for one user behind
// sessions opened and deleted one after another.
func TestHTTPMaxInFlightPerSubjectAdrift(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	h := mcphttp.NewHandler(stubbornServer(release), &mcphttp.HandlerOptions{MaxInFlightPerSubject: 1, Logger: quietLog})
	abandoned := make(chan struct{}, 8)
	h.OnAbandoned(func() { abandoned <- struct{}{} })
	ts := httptest.NewServer(withAuth(h))
	url := ts.URL + "/mcp"
	mallory := &mcphttp.AuthInfo{Subject: "mallory"}

	sid := mustInitialize(t, url, "mallory.c")
	hdr := sessionHeaders(sid)
	hdr["Authorization"] = "Bearer mallory.c"
	s := openSSE(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"key":"k"},"_meta":{"progressToken":1}}}`, hdr)
	for {
		if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], "holding k") {
			break
		}
	}
	s.resp.Body.Close() // walk away
	await(t, abandoned, "the abandoned POST to let go of its session")
	if n := h.InFlightOf(mallory); n != 0 {
		t.Fatalf("mallory has %d POSTs counted while her walked-away call's session lives, want 0", n)
	}
	if status, _, reply := postAs(t, url, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, hdr); status != http.StatusOK {
		t.Fatalf("a ping of the session meanwhile: %d %+v", status, reply.Error)
	}
	if code := deleteAs(t, url, sid, "mallory.c"); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	if n := h.InFlightOf(mallory); n != 1 {
		t.Fatalf("mallory has %d POSTs counted once the session of her still running call ended, want 1", n)
	}
	if resp, _, _ := initializeAs(t, url, "mallory.c"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("mallory's initialize while an ended session's handler of hers runs: %s; want 429", resp.Status)
	}
	mustInitialize(t, url, "alice.c")
	close(release)
	// The handler returns on the walked-away POST's goroutine, which then
	// gives its place back: polling for the count, not synchronising.
	for deadline := time.Now().Add(10 * time.Second); h.InFlightOf(mallory) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("mallory has %d POSTs counted once her handler returned", h.InFlightOf(mallory))
		}
	}
	mustInitialize(t, url, "mallory.c")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	http.DefaultClient.CloseIdleConnections()
	if n := h.InFlight(); n != 0 {
		t.Fatalf("%d POSTs count against MaxInFlight after Shutdown", n)
	}
	waitGoroutines(t, before)
}

// The count of a user's POSTs comes back to zero whatever order a walked
// away POST's abandonment, its session's end (DELETE, Shutdown) and its
// handler's return come in.
func TestHTTPMaxInFlightPerSubjectRaces(t *testing.T) {
	release := make(chan struct{})
	h := mcphttp.NewHandler(holdServer(release, nil), &mcphttp.HandlerOptions{MaxInFlight: -1, MaxInFlightPerSubject: 1000, MaxSessionsPerSubject: -1, Logger: quietLog})
	ts := httptest.NewServer(withAuth(h))
	url := ts.URL + "/mcp"
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := fmt.Sprintf("mallory.c%d", w)
			for i := range 8 {
				resp, _, sid := initializeAs(t, url, tok)
				if sid == "" {
					t.Errorf("initialize: %s", resp.Status)
					return
				}
				hdr := sessionHeaders(sid)
				hdr["Authorization"] = "Bearer " + tok
				call := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"key":"%d-%d"},"_meta":{"progressToken":1}}}`, w, i)
				resp = rawPost(t, url, call, hdr)
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
					deleteAs(t, url, sid, tok)
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
	if n := h.InFlightOf(&mcphttp.AuthInfo{Subject: "mallory"}); n != 0 {
		t.Fatalf("mallory has %d POSTs counted after all returned", n)
	}
}
