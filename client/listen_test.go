package client_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// heard collects what the client's list and update callbacks are told.
type heard struct {
	tools   chan struct{}
	updated chan string
}

func newHeard() *heard {
	return &heard{tools: make(chan struct{}, 16), updated: make(chan string, 16)}
}

func (h *heard) options(o *client.Options) *client.Options {
	if o == nil {
		o = &client.Options{}
	}
	o.OnToolsChanged = func() {
		select {
		case h.tools <- struct{}{}:
		default:
		}
	}
	o.OnResourceUpdated = func(uri string) {
		select {
		case h.updated <- uri:
		default:
		}
	}
	o.Logger = quietLog
	return o
}

func waitFor[T any](t *testing.T, ctx context.Context, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("never heard %s", what)
	}
	var zero T
	return zero
}

// A 2026-07-28 server has no session to send list changes and resource
// updates to; it sends them on a subscriptions/listen the client holds
// open. Before, the client opened none: OnToolsChanged never fired with a
// 2026-07-28 server, and Subscribe failed with "use subscriptions/listen".
// Both transports: in memory and Streamable HTTP.
func TestListenHearsChanges(t *testing.T) {
	noLeaks(t)
	for _, medium := range []string{"pipe", "http"} {
		t.Run(medium, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			srv := mcp.NewServer(&mcp.Implementation{Name: "changing", Version: "1"}, &mcp.ServerOptions{Logger: quietLog})
			const uri = "file:///notes.txt"
			srv.AddResource(&mcp.Resource{URI: uri, Name: "notes"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				text := "notes"
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: &text}}}, nil
			})
			h := newHeard()
			opts := h.options(&client.Options{ProtocolVersion: mcp.Version20260728})
			var c *client.Client
			var err error
			if medium == "pipe" {
				c, err = client.ConnectServer(ctx, srv, opts)
			} else {
				hh := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Logger: quietLog})
				ts := httptest.NewServer(hh)
				defer ts.Close()
				defer hh.Shutdown(context.Background())
				var stream *transport.Stream
				stream, err = mcphttp.NewStream(ctx, ts.URL, &mcphttp.ClientOptions{Logger: quietLog})
				if err == nil {
					c, err = client.Connect(ctx, stream, opts)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			// Connect returns once the listen is acknowledged: a tool
			// added now is heard.
			mcp.AddTool(srv, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return nil, nil, nil
			})
			waitFor(t, ctx, h.tools, "the tool list change")

			// Subscribe returns once a listen naming the resource is
			// acknowledged: an update sent now is heard, and the list
			// changes still are (the new listen kept them).
			if err := c.Subscribe(ctx, uri); err != nil {
				t.Fatal(err)
			}
			srv.ResourceUpdated(ctx, uri)
			if got := waitFor(t, ctx, h.updated, "the resource update"); got != uri {
				t.Fatalf("update for %q, want %q", got, uri)
			}
			srv.RemoveTools("late")
			waitFor(t, ctx, h.tools, "the tool list change after Subscribe")

			if err := c.Unsubscribe(ctx, uri); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// fakeListener is a 2026-07-28 server, by hand, that ends its first
// subscriptions/listen right after acknowledging it (as a server does
// whose token expired, or that shut down), and holds the next ones open.
type fakeListener struct {
	listens atomic.Int32
	refuse  bool // answer every listen with -32601
	// ackAfter, if set, holds the first listen's acknowledgement until
	// it is closed.
	ackAfter chan struct{}
}

func (f *fakeListener) Handle(ctx context.Context, c *transport.Conn, r *transport.Request) {
	switch r.Method {
	case "server/discover":
		c.Reply(ctx, r, map[string]any{
			"supportedVersions": []string{mcp.Version20260728},
			"capabilities":      map[string]any{"tools": map[string]any{"listChanged": true}},
			"resultType":        "complete",
		})
	case "subscriptions/listen":
		n := f.listens.Add(1)
		if f.refuse {
			c.ReplyError(ctx, r, &transport.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found"})
			return
		}
		meta := map[string]json.RawMessage{mcp.MetaSubscriptionID: r.ID.Raw()}
		if n == 1 && f.ackAfter != nil {
			go func() {
				<-f.ackAfter
				c.Notify(ctx, "notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"toolsListChanged": true}, "_meta": meta})
				<-ctx.Done()
				c.Release(r)
			}()
			return
		}
		c.Notify(ctx, "notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"toolsListChanged": true}, "_meta": meta})
		if n == 1 {
			c.Reply(ctx, r, map[string]any{"resultType": "complete", "_meta": meta})
			return
		}
		go func() {
			<-ctx.Done()
			c.Release(r)
		}()
	default:
		c.ReplyError(ctx, r, &transport.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found"})
	}
}

// connectFake connects a client with h's callbacks to f, both closed
// when the test ends.
func connectFake(t *testing.T, ctx context.Context, f *fakeListener, h *heard) *client.Client {
	t.Helper()
	a, b := transport.Pipe(nil)
	srvConn := transport.NewConn(a, f, nil)
	t.Cleanup(func() { srvConn.Close() })
	c, err := client.Connect(ctx, b, h.options(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A listen that ends is opened again, and since what changed in between
// was not heard, OnToolsChanged is called once the new one is
// acknowledged: the caller lists again.
func TestListenReopensAndReportsWhatItMayHaveMissed(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := &fakeListener{}
	h := newHeard()
	connectFake(t, ctx, f, h)
	waitFor(t, ctx, h.tools, "the callback after the listen was opened again")
	if n := f.listens.Load(); n != 2 {
		t.Errorf("%d listens, want 2 (the first ended, the second held)", n)
	}
	select {
	case <-h.tools:
		t.Error("OnToolsChanged called again with nothing changed")
	default:
	}
}

// A server that acknowledges the first listen only after Connect stopped
// waiting for it: what changed before the acknowledgement was not heard,
// so the callbacks run once it comes (before, nothing told the caller,
// and a tool added in that window was never heard of; seen under load in
// TestListenHearsChanges).
func TestListenLateFirstAckReportsWhatItMayHaveMissed(t *testing.T) {
	noLeaks(t)
	client.SetFirstListenWait(t, time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := &fakeListener{ackAfter: make(chan struct{})}
	h := newHeard()
	connectFake(t, ctx, f, h)
	heardOnceAcknowledged(t, ctx, f, h)
	if n := f.listens.Load(); n != 1 {
		t.Errorf("%d listens, want 1", n)
	}
}

// A server that does not know subscriptions/listen is asked once, not in
// a loop; Subscribe then fails with its answer.
func TestListenRefusedIsNotRetried(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := &fakeListener{refuse: true}
	c := connectFake(t, ctx, f, newHeard())
	// Ping is a round trip behind the refusal: the loop has seen it.
	if err := c.Ping(ctx); err != nil && !strings.Contains(err.Error(), "Method not found") {
		t.Fatal(err)
	}
	if n := f.listens.Load(); n != 1 {
		t.Errorf("%d listens for a server that refuses them, want 1", n)
	}
}

// The same when it is Connect's context, not the wait, that ends before
// the first listen is acknowledged (a caller's deadline, a Process's
// HandshakeTimeout running out under load): what changed meanwhile was
// not heard, so the callbacks run once the acknowledgement comes. Before,
// only the end of the wait said so, and a tool added in that window was
// never heard of.
func TestListenFirstAckAfterConnectContextEnded(t *testing.T) {
	noLeaks(t)
	client.SetFirstListenWait(t, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := &fakeListener{ackAfter: make(chan struct{})}
	h := newHeard()
	cctx, ccancel := context.WithTimeout(ctx, 500*time.Millisecond) // the handshake takes far less
	connectFake(t, cctx, f, h)
	ccancel()
	heardOnceAcknowledged(t, ctx, f, h)
}

// heardOnceAcknowledged checks that OnToolsChanged waits for f's held
// acknowledgement, and runs once f sends it.
func heardOnceAcknowledged(t *testing.T, ctx context.Context, f *fakeListener, h *heard) {
	t.Helper()
	select {
	case <-h.tools:
		t.Fatal("OnToolsChanged before the listen was acknowledged")
	default:
	}
	close(f.ackAfter)
	waitFor(t, ctx, h.tools, "the callback once the late listen was acknowledged")
}
