package mcphttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// holdCall is a legacy tools/call of hold that asks for progress.
func holdCall(id, key string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"hold","arguments":{"key":"` + key + `"},"_meta":{"progressToken":"` + key + `"}}}`
}

// A request runs on its POST's goroutine; a POSTed notifications/cancelled
// cancels it, and its stream gets no response. The session goes on.
func TestHTTPDirectCancel(t *testing.T) {
	cancelled := make(chan string, 1)
	_, url := serveHTTP(t, holdServer(make(chan struct{}), cancelled), nil)
	sid := openSession(t, url)
	rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid)).Body.Close()
	s := openSSE(t, http.MethodPost, url, holdCall(`"c1"`, "k1"), sessionHeaders(sid))
	for {
		if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], "holding k1") {
			break // the progress reached the client while the call runs
		}
	}
	resp := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`, sessionHeaders(sid))
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %s", resp.Status)
	}
	if key := await(t, cancelled, "the call to be cancelled"); key != "k1" {
		t.Fatalf("cancelled %q", key)
	}
	resp = rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, sessionHeaders(sid))
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		t.Fatalf("ping after the cancel: %s %s", resp.Status, body)
	}
	// Ending the session ends the cancelled call's stream, which carried
	// no response.
	deleteSession(t, url, sid)
	rest, _ := io.ReadAll(s.br)
	if strings.Contains(string(rest), `"result"`) || strings.Contains(string(rest), `"error"`) {
		t.Fatalf("the cancelled call was answered: %q", rest)
	}
}

// Ending a session (DELETE) while a call runs on its POST's goroutine
// cancels the call, and the POST's stream ends.
func TestHTTPDirectSessionEnd(t *testing.T) {
	cancelled := make(chan string, 1)
	_, url := serveHTTP(t, holdServer(make(chan struct{}), cancelled), nil)
	sid := openSession(t, url)
	rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid)).Body.Close()
	s := openSSE(t, http.MethodPost, url, holdCall("1", "k1"), sessionHeaders(sid))
	for {
		if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], "holding k1") {
			break
		}
	}
	deleteSession(t, url, sid)
	if key := await(t, cancelled, "the call to be cancelled"); key != "k1" {
		t.Fatalf("cancelled %q", key)
	}
	if _, err := io.ReadAll(s.br); err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
}

// Requests run on their POSTs' goroutines leave nothing behind: after
// stateless calls, a session's quick, streamed, abandoned and cancelled
// calls, and Shutdown, the goroutine count is back where it was.
func TestHTTPDirectNoLeaks(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	func() {
		release := make(chan struct{})
		h := mcphttp.NewHandler(holdServer(release, nil), &mcphttp.HandlerOptions{Logger: quietLog})
		ts := httptest.NewServer(h)
		defer ts.Close()
		url := ts.URL + "/mcp"
		stateless := map[string]string{mcphttp.HeaderProtocolVersion: mcp.Version20260728, mcphttp.HeaderMethod: "tools/list"}
		for i := range 5 {
			resp := rawPost(t, url, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/list","params":{`+meta2026+`}}`, stateless)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("stateless tools/list: %s", resp.Status)
			}
		}
		sid := openSession(t, url)
		rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sessionHeaders(sid)).Body.Close()
		resp := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, sessionHeaders(sid))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// A streamed call whose client walks away, and one it cancels.
		for _, id := range []string{"3", "4"} {
			s := openSSE(t, http.MethodPost, url, holdCall(id, "k"+id), sessionHeaders(sid))
			for {
				if ev := s.event(t); len(ev) > 0 && strings.Contains(ev[len(ev)-1], "holding k"+id) {
					break
				}
			}
			if id == "4" {
				rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`, sessionHeaders(sid)).Body.Close()
			}
			s.resp.Body.Close()
		}
		close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	}()
	http.DefaultClient.CloseIdleConnections()
	waitGoroutines(t, before)
}

// waitGoroutines fails t unless the count of goroutines comes back to
// before within 10 s: goroutines end a little after what ends them, so the
// count is polled.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond) // polling for the count, not synchronising
	}
}
