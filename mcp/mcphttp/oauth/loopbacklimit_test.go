package oauth_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// dialLoopback opens a raw connection to the listener, with a deadline
// that only bounds a failing test.
func dialLoopback(t *testing.T, l *oauth.Loopback) net.Conn {
	t.Helper()
	u, _ := url.Parse(l.RedirectURL())
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closed c without answering:
// a read ends with EOF or a reset, not with the test's deadline.
func closedByServer(c net.Conn) bool {
	_, err := c.Read(make([]byte, 1))
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// waitGoroutinesBack fails t unless the goroutine count comes back to
// before: goroutines end a little after what ends them, so the count is
// polled.
func waitGoroutinesBack(t *testing.T, before int) {
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

// A flood of connections to the redirect listener while the user logs
// in holds at most the connection limit: the others are closed as they
// come, not queued, and the listener's goroutines stay bounded. Close
// then returns at once, cutting the connections that never sent a
// request, and leaves no goroutine behind.
func TestLoopbackFlood(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	const limit = 4
	oauth.SetLoopbackLimits(t, limit, time.Minute, time.Minute) // the flood is held, not timed out
	l, err := oauth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	// The slow ones take every slot: a header begun, never ended.
	var held []net.Conn
	for range limit {
		c := dialLoopback(t, l)
		if _, err := io.WriteString(c, "GET /callback?state=x HTTP/1.1\r\nHost: 127.0.0.1\r\n"); err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Accepted in order: every connection past the limit is closed
	// without an answer.
	for i := range 100 {
		c := dialLoopback(t, l)
		if !closedByServer(c) {
			t.Fatalf("connection %d past the limit of %d was kept open", i, limit)
		}
		c.Close()
	}
	if n := runtime.NumGoroutine() - before; n > limit+4 {
		t.Errorf("%d goroutines during the flood, for %d connections held", n, limit)
	}
	// A slot freed is a slot the browser can use.
	held[0].Close()
	for {
		resp, err := http.Get(l.RedirectURL() + "?state=nothing-in-progress")
		if err != nil {
			continue // the slot is freed once the server sees the close
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("callback: %d", resp.StatusCode)
		}
		if !resp.Close {
			t.Error("the answer keeps its connection open")
		}
		break
	}
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("Close took %v with %d slow connections open: it waited for them", d, limit-1)
	}
	for _, c := range held[1:] {
		if !closedByServer(c) {
			t.Error("a slow connection outlived Close")
		}
		c.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	waitGoroutinesBack(t, before)
}

// A client that sends its request a byte at a time, or not at all, is cut
// after the header timeout; one whose header is too large is refused; the
// listener answers no other path or method; and the callback still works
// after all of them.
func TestLoopbackSlowAndLargeRequests(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	oauth.SetLoopbackLimits(t, 4, 200*time.Millisecond, 400*time.Millisecond)
	l, err := oauth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	// Slowloris: the header never ends; the server closes first.
	c := dialLoopback(t, l)
	io.WriteString(c, "GET /callback?state=x HTTP/1.1\r\n")
	if !closedByServer(c) {
		t.Fatal("a header that never ends kept its connection")
	}
	c.Close()
	// Silent: nothing sent at all.
	if c := dialLoopback(t, l); !closedByServer(c) {
		t.Fatal("a silent connection was kept")
	}

	status := func(raw string) int {
		t.Helper()
		c := dialLoopback(t, l)
		defer c.Close()
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	big := "GET /callback?state=x HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + strings.Repeat("a", 64<<10) + "\r\n\r\n"
	if s := status(big); s != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB header: %d", s)
	}
	if s := status("GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); s != http.StatusNotFound {
		t.Errorf("another path: %d", s)
	}
	if s := status("POST /callback?state=x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"); s != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", s)
	}

	// The login still ends with its callback.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l.Show = func(string) {
		go func() {
			if resp, err := http.Get(l.RedirectURL() + "?state=s1&code=good"); err == nil {
				resp.Body.Close()
			}
		}()
	}
	q, err := l.Authorize(ctx, "https://as.example/authorize?state=s1")
	if err != nil || q.Get("code") != "good" {
		t.Fatalf("callback: %v, %v", q, err)
	}
	l.Close()
	http.DefaultClient.CloseIdleConnections()
	waitGoroutinesBack(t, before)
}
