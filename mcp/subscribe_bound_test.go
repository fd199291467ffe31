package mcp_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// A client cannot grow a session's subscriptions without bound by
// subscribing to ever new URIs: past MaxSubscriptions a new URI is
// refused, an existing one and unsubscribing still work.
func TestSubscriptionsAreBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{MaxSubscriptions: 3})
	w := initializedWire(t, srv, `{}`)
	id := 0
	call := func(method, uri string) string {
		id++
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":{"uri":"` + uri + `"}}`)
		return w.recv()
	}
	ok := func(got string) bool { return strings.Contains(got, `"result":{}`) }
	for _, u := range []string{"file:///a", "file:///b", "file:///c", "file:///a"} {
		if got := call("resources/subscribe", u); !ok(got) {
			t.Fatalf("subscribe %s: %s", u, got)
		}
	}
	if got := call("resources/subscribe", "file:///d"); ok(got) || !strings.Contains(got, "MaxSubscriptions") {
		t.Fatalf("fourth URI with a bound of 3: %s, want a refusal naming MaxSubscriptions", got)
	}
	if got := call("resources/unsubscribe", "file:///a"); !ok(got) {
		t.Fatalf("unsubscribe: %s", got)
	}
	if got := call("resources/subscribe", "file:///d"); !ok(got) {
		t.Fatalf("subscribe after unsubscribing: %s", got)
	}
}

// A subscriptions/listen request may name no more resources than
// MaxSubscriptions either: the filter is held for as long as it is open.
func TestListenFilterIsBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{MaxSubscriptions: 2})
	w := connectWire(t, srv)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["a:1","a:2","a:3"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if got := w.recv(); !strings.Contains(got, `"id":1,"error"`) || !strings.Contains(got, "MaxSubscriptions") {
		t.Fatalf("listen naming 3 resources with a bound of 2: %s", got)
	}
}

// Open subscriptions/listen requests are bounded over the server
// (MaxListeners) and per principal (MaxListenersPerPrincipal): each holds
// its filter and is matched on every change, and before the bound a
// client could open them without limit, on as many sessions as it liked.
// A refusal is -32010 naming the bound; a closed listener gives its place
// back.
func TestListenersAreBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{MaxListeners: 3, MaxListenersPerPrincipal: 2})
	type conn struct {
		*wire
		ss *mcp.ServerSession
	}
	connect := func(principal string) conn {
		a, b := net.Pipe()
		ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
		ss.BindPrincipal(principal)
		t.Cleanup(func() {
			a.Close()
			<-ss.Done()
		})
		return conn{&wire{t: t, conn: a, r: bufio.NewReader(a)}, ss}
	}
	listen := func(w *wire, id int) string {
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["a:1"]},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
		return w.recv()
	}
	acked := func(got string) bool { return strings.Contains(got, "notifications/subscriptions/acknowledged") }
	refused := func(got, bound string) bool {
		return strings.Contains(got, `"error":{"code":-32010`) && strings.Contains(got, "ServerOptions."+bound+")")
	}
	alice, alice2, bob := connect("alice"), connect("alice"), connect("bob")
	if got := listen(alice.wire, 1); !acked(got) {
		t.Fatalf("alice's listen: %s", got)
	}
	if got := listen(alice2.wire, 1); !acked(got) {
		t.Fatalf("alice's listen on another session: %s", got)
	}
	if got := listen(alice.wire, 2); !refused(got, "MaxListenersPerPrincipal") {
		t.Fatalf("alice's third listen, with 2 per principal: %s; want -32010 naming MaxListenersPerPrincipal", got)
	}
	if got := listen(bob.wire, 1); !acked(got) {
		t.Fatalf("bob's listen: %s", got)
	}
	if got := listen(bob.wire, 2); !refused(got, "MaxListeners") {
		t.Fatalf("a fourth listen, with 3 in all: %s; want -32010 naming MaxListeners", got)
	}
	alice2.conn.Close() // its listen ends with its session
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := alice2.ss.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := listen(alice.wire, 3); !acked(got) {
		t.Fatalf("alice's listen once her other one closed: %s", got)
	}
	if got := listen(bob.wire, 3); !refused(got, "MaxListeners") {
		t.Fatalf("bob's second listen, with 3 open again: %s; want -32010 naming MaxListeners", got)
	}
}

// halfPipe is the server's end of a stdio connection: it reads what the
// client writes and writes what the client reads, and the client can
// close its output (the server's input) alone, as a host closing a child's
// stdin does.
type halfPipe struct {
	io.Reader
	io.Writer
}

func (halfPipe) Close() error { return nil }

// A client that closes its output can no longer cancel its
// subscriptions/listen: the server ends the listen with its final result
// at once. Before, the stream waited its drain timeout (5 s) for the
// listen to be answered, then closed without answering it: every
// 2026-07-28 client that held a listen delayed its stdio server's exit.
func TestListenEndsWhenInputEnds(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(halfPipe{inR, outW}, 0), &transport.StreamOptions{DrainTimeout: time.Minute}))
	t.Cleanup(func() {
		outR.Close()
		<-ss.Done()
	})
	lines := make(chan string, 4)
	go func() {
		defer close(lines)
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()
	recv := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second): // a bound, far above the answer's microseconds
			t.Fatal("no answer within 10 s")
			return ""
		}
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n")
	if got := recv(); !strings.Contains(got, "notifications/subscriptions/acknowledged") {
		t.Fatalf("listen: %s", got)
	}
	inW.Close()
	if got := recv(); !strings.Contains(got, `"id":7,"result":{`) {
		t.Fatalf("after the input ended: %s, want the listen's final result", got)
	}
}

// A change made as soon as the client holds the acknowledgement reaches
// it. The server registered the listener only after writing the
// acknowledgement, and a change in between was lost, with nothing to tell
// the client it had missed one (TestListenHearsChanges in client failed
// under load on it). Each round opens a listen, reads the acknowledgement
// and publishes at once.
func TestListenHearsChangeRightAfterAck(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	for round := range 30 {
		w := connectWire(t, srv)
		w.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["a:1"]},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if got := w.recv(); !strings.Contains(got, "notifications/subscriptions/acknowledged") {
			t.Fatalf("round %d: %s", round, got)
		}
		srv.ResourceUpdated(context.Background(), "a:1")
		if got := w.recv(); !strings.Contains(got, "notifications/resources/updated") {
			t.Fatalf("round %d: after the acknowledgement, %s", round, got)
		}
		w.conn.Close()
	}
}
