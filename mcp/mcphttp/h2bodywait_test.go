package mcphttp_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// A body that waits for room under MaxBodyMemory does not stall the
// other bodies of its HTTP/2 connection. Over HTTP/2 a waiting body's
// client goes on sending: what it sent stays unread in net/http's buffer
// and holds the connection's flow-control window (1 MiB), so that no
// other body of the connection arrives, the one holding the room among
// them. The two waited for each other until BodyWait refused the waiter
// (503), the other body stalled all along; over HTTP/1.1 (a connection
// per body) the first finishes and the waiter is served after it. Over
// HTTP/2 the waiter is now refused at once, which frees the window.
func TestHTTP2BodyWaitDoesNotStallConnection(t *testing.T) {
	const bodyWait = 10 * time.Second
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}[h2], func(t *testing.T) {
			holderRead := make(chan struct{}, 1)
			waiterIn := make(chan struct{}, 1)
			wrap := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch r.Header.Get("X-Body") {
					case "holder":
						r.Body = &firstRead{ReadCloser: r.Body, read: holderRead}
					case "waiter":
						waiterIn <- struct{}{}
					}
					next.ServeHTTP(w, r)
				})
			}
			_, ts := startTestServer(t, httpTestServer(), &mcphttp.HandlerOptions{MaxBodyMemory: 64 << 10, BodyWait: bodyWait}, wrap, h2)
			url, hc := ts.URL+"/mcp", ts.Client()
			ctx, cancel := context.WithTimeout(context.Background(), 2*bodyWait)
			defer cancel()
			do := func(req *http.Request, done chan<- *http.Response) {
				resp, err := hc.Do(req)
				if err != nil {
					t.Errorf("%s: %v", req.Header.Get("X-Body"), err)
					done <- nil
					return
				}
				_, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				done <- resp
			}
			call := statelessCallBody("sum", `{"a":2,"b":3}`)
			// The holder: a body of 8 MiB (the call and spaces), of which
			// the client sends the call first, and the rest only once the
			// waiter is in. Read, it holds all the room.
			const pad = 8 << 20
			pr, pw := io.Pipe()
			defer pw.Close()
			holder := statelessCall(t, ctx, url, "sum", pr)
			holder.ContentLength = int64(len(call) + pad)
			holder.Header.Set("X-Body", "holder")
			holderDone := make(chan *http.Response, 1)
			go do(holder, holderDone)
			if _, err := io.WriteString(pw, call); err != nil {
				t.Fatal(err)
			}
			await(t, holderRead, "the holder's body to be read")
			// The waiter: 2 MiB, more than the connection's window, sent
			// at once. It finds no room.
			waiter := statelessCall(t, ctx, url, "sum", bytes.NewReader([]byte(call+strings.Repeat(" ", 2<<20))))
			waiter.Header.Set("X-Body", "waiter")
			waiterDone := make(chan *http.Response, 1)
			go do(waiter, waiterDone)
			await(t, waiterIn, "the waiter to reach the handler")
			start := time.Now()
			go func() {
				_, _ = io.Copy(pw, io.LimitReader(spaces{}, pad))
				pw.Close()
			}()
			h := await(t, holderDone, "the holder's answer")
			took := time.Since(start)
			w := await(t, waiterDone, "the waiter's answer")
			if h == nil || w == nil {
				t.FailNow()
			}
			if h.StatusCode != http.StatusOK {
				t.Fatalf("the holder: %s", h.Status)
			}
			if took >= bodyWait {
				t.Fatalf("the holder's body took %v to arrive, BodyWait or more: the waiter stalled it", took)
			}
			switch {
			case w.StatusCode == http.StatusOK:
			case h2 && w.StatusCode == http.StatusServiceUnavailable && w.Header.Get("Retry-After") != "":
				// Refused at once, for the client to retry.
			default:
				t.Fatalf("the waiter over %s: %s", w.Proto, w.Status)
			}
		})
	}
}

// firstRead tells read once a Read of its body returns bytes.
type firstRead struct {
	io.ReadCloser
	read chan<- struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	n, err := f.ReadCloser.Read(p)
	if n > 0 {
		select {
		case f.read <- struct{}{}:
		default:
		}
	}
	return n, err
}

// spaces reads as spaces without end: JSON whitespace, to pad a body.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
