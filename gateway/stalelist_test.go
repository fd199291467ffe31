package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// TestStaleRelistDoesNotMarkListed: a relist that began on one run's
// connection and ends after the upstream started again (its connection
// lost, the kill switch thrown and released) listed the old run, not the
// new one. It must not mark the upstream listed: setState(StateReady)
// keeps listed as it is, so when the new start keeps its connection,
// waitSettled (and Start) would return before the new connection's tools
// are listed, and the facade serve the old run's lists, or none.
func TestStaleRelistDoesNotMarkListed(t *testing.T) {
	var gate atomic.Pointer[chan struct{}] // set: tools/list waits for it to close
	listing := make(chan struct{}, 1)
	up := mcphttp.NewHandler(upstreamServer(), nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if g := gate.Load(); g != nil && bytes.Contains(body, []byte(`"tools/list"`)) {
				select {
				case listing <- struct{}{}:
				default:
				}
				<-*g
			}
		}
		up.ServeHTTP(w, r)
	}))
	defer ts.Close()
	g, err := New(&Options{HTTP: map[string]*HTTPServer{"up": {URL: ts.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	u := g.upstream("up")

	// A relist (the server said its tools changed) is listing this
	// run's connection...
	g1 := make(chan struct{})
	gate.Store(&g1)
	done := make(chan struct{})
	go func() { u.relist(); close(done) }()
	<-listing
	// ...when the upstream starts again, as start does.
	u.setState(StateStarting, nil)
	close(g1)
	<-done
	// The new start keeps its connection (keep), and its run lists it.
	g2 := make(chan struct{})
	gate.Store(&g2)
	defer close(g2)
	u.setState(StateReady, nil)
	go u.relist()
	<-listing
	if isListed(u) {
		t.Fatal("marked listed while the new run's tools are still being listed: a relist of the previous run marked it; waitSettled would return now")
	}
}

// TestRelistWhileStarting: while a new start is under way, the upstream
// still holds the previous run's connection (closed, in a real restart).
// A relist then (the new connection says list_changed in its handshake,
// or a round asked for again) lists that connection, not the new one: it
// must not mark the upstream listed, or waitSettled returns as soon as
// the new connection is kept, before it is listed.
func TestRelistWhileStarting(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	u := f.g.upstream("up")
	u.setState(StateStarting, nil) // as start does; u.c is the previous run's
	u.relist()
	if isListed(u) {
		t.Fatal("marked listed by a relist of the previous run's connection while a new start is under way")
	}
}
