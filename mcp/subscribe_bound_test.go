package mcp_test

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// A client cannot grow a session's subscriptions without bound by
// subscribing to ever new URIs: past MaxSubscriptions a new URI is
// refused, an existing one and unsubscribing still work.
func TestSubscriptionsAreBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{MaxSubscriptions: 3})
	a, b := net.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	t.Cleanup(func() {
		a.Close()
		<-ss.Done()
	})
	w := &wire{t: t, conn: a, r: bufio.NewReader(a)}
	w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
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
	a, b := net.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	t.Cleanup(func() {
		a.Close()
		<-ss.Done()
	})
	w := &wire{t: t, conn: a, r: bufio.NewReader(a)}
	w.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["a:1","a:2","a:3"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if got := w.recv(); !strings.Contains(got, `"id":1,"error"`) || !strings.Contains(got, "MaxSubscriptions") {
		t.Fatalf("listen naming 3 resources with a bound of 2: %s", got)
	}
}
