package oauth_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// The loopback listener takes only the callback of the authorization in
// progress: a forged state is refused and does not end the wait.
func TestLoopback(t *testing.T) {
	l, err := oauth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	shown := make(chan string, 1)
	l.Show = func(u string) { shown <- u }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan url.Values, 1)
	go func() {
		q, err := l.Authorize(ctx, "https://as.example/authorize?state=s1&client_id=c")
		if err != nil {
			t.Error(err)
		}
		done <- q
	}()
	<-shown
	get := func(q string) int {
		resp, err := http.Get(l.RedirectURL() + "?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("state=forged&code=x"); c != http.StatusBadRequest {
		t.Fatalf("forged state: %d", c)
	}
	if c := get("state=s1&code=good"); c != http.StatusOK {
		t.Fatalf("callback: %d", c)
	}
	if q := <-done; q.Get("code") != "good" {
		t.Fatalf("got %v", q)
	}
	// With nothing in progress, every callback is refused.
	if c := get("state=s1&code=again"); c != http.StatusBadRequest {
		t.Fatalf("late callback: %d", c)
	}
	// Cancellation ends the wait.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := l.Authorize(ctx2, "https://as.example/authorize?state=s2"); err == nil {
		t.Fatal("Authorize returned without a callback")
	}
}

// The browser gets its page even when the program closes the listener as
// soon as Authorize returns, as a command-line client does: Close lets a
// response being written finish instead of cutting its connection.
func TestLoopbackCloseLetsTheBrowserHaveItsPage(t *testing.T) {
	for i := range 300 {
		l, err := oauth.ListenLoopback(0)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		l.Show = func(string) {
			go func() {
				resp, err := http.Get(l.RedirectURL() + "?code=c&state=s" + strconv.Itoa(i))
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				got <- err
			}()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = l.Authorize(ctx, "https://as.example/authorize?state=s"+strconv.Itoa(i))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		if err := <-got; err != nil {
			t.Fatalf("run %d: the browser got %v, not its page", i, err)
		}
	}
}

// A callback is taken once, for the authorization it answers, and never
// outlives it: one accepted while that authorization was giving up (its
// context ended) is not handed to the next, which would fail on a state
// it never sent, and a second callback with a used state is refused.
func TestLoopbackCallbackSingleUse(t *testing.T) {
	l, err := oauth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	get := func(q string) int {
		resp, err := http.Get(l.RedirectURL() + "?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 20 {
		s1, s2 := "a"+strconv.Itoa(i), "b"+strconv.Itoa(i)
		// The callback arrives as the first authorization gives up: both
		// are ready when it looks, and it may take either.
		ctx1, cancel1 := context.WithCancel(context.Background())
		l.Show = func(string) {
			cancel1()
			get("code=old&state=" + s1)
		}
		_, _ = l.Authorize(ctx1, "https://as.example/authorize?state="+s1)
		if c := get("code=replay&state=" + s1); c == http.StatusOK {
			t.Fatalf("run %d: a second callback for a used state was accepted", i)
		}
		ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
		l.Show = func(string) {
			go func() { // not get: t.Fatal belongs to the test's goroutine
				if resp, err := http.Get(l.RedirectURL() + "?code=new&state=" + s2); err == nil {
					resp.Body.Close()
				}
			}()
		}
		q, err := l.Authorize(ctx2, "https://as.example/authorize?state="+s2)
		cancel2()
		if err != nil || q.Get("state") != s2 || q.Get("code") != "new" {
			t.Fatalf("run %d: the next authorization got %v, %v", i, q, err)
		}
	}
}

// One Loopback serves every authorization of a Transport, and a Transport
// may serve several endpoints at once: two authorizations waiting
// together each get their own callback, whichever comes first, and the
// end of one does not cancel the other's state.
func TestLoopbackConcurrentAuthorizations(t *testing.T) {
	l, err := oauth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	shown := make(chan string, 2)
	l.Show = func(u string) { shown <- u }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		q   url.Values
		err error
	}
	results := map[string]chan result{"s1": make(chan result, 1), "s2": make(chan result, 1)}
	for s, ch := range results {
		go func() {
			q, err := l.Authorize(ctx, "https://as.example/authorize?state="+s)
			ch <- result{q, err}
		}()
	}
	<-shown
	<-shown
	get := func(q string) int {
		resp, err := http.Get(l.RedirectURL() + "?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, s := range []string{"s2", "s1"} {
		if c := get("code=for-" + s + "&state=" + s); c != http.StatusOK {
			t.Fatalf("callback for %s: %d", s, c)
		}
		r := <-results[s]
		if r.err != nil || r.q.Get("state") != s || r.q.Get("code") != "for-"+s {
			t.Fatalf("authorization %s got %v, %v", s, r.q, r.err)
		}
	}
}

// A page that rebinds its own name to 127.0.0.1 reaches the listener with
// its name in Host. It is refused before its state is looked at, so even a
// right state neither ends the authorization nor uses it up.
func TestLoopbackRefusesReboundHost(t *testing.T) {
	l, err := oauth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	get := func(host, q string) int {
		req, err := http.NewRequest(http.MethodGet, l.RedirectURL()+"?"+q, nil)
		if err != nil {
			t.Error(err) // not Fatal: get runs on Show's goroutine
			return -1
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return -1
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	port := strings.TrimPrefix(strings.TrimSuffix(l.RedirectURL(), "/callback"), "http://127.0.0.1:")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	codes := make(chan []int, 1)
	l.Show = func(string) {
		go func() {
			var got []int
			for _, h := range []string{"rebind.example:" + port, "localhost:" + port, "127.0.0.1.nip.io:" + port, "[::1]:" + port, "127.0.0.2:" + port} {
				got = append(got, get(h, "code=evil&state=s1"))
			}
			got = append(got, get("127.0.0.1:"+port, "code=good&state=s1"))
			codes <- got
		}()
	}
	q, err := l.Authorize(ctx, "https://as.example/authorize?state=s1")
	if err != nil || q.Get("code") != "good" {
		t.Fatalf("Authorize = %v, %v; want the callback sent at 127.0.0.1", q, err)
	}
	got := <-codes
	for i, c := range got[:len(got)-1] {
		if c != http.StatusMisdirectedRequest {
			t.Errorf("callback %d under another Host: status %d, want %d", i, c, http.StatusMisdirectedRequest)
		}
	}
	if c := got[len(got)-1]; c != http.StatusOK {
		t.Errorf("callback at 127.0.0.1: status %d, want 200", c)
	}
}
