package mcp_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// A client that stops reading cannot make list changes pile up goroutines
// in the server: each change used to start one goroutine per session,
// each waiting up to 5 s on a write that never finishes. Changes to the
// same list are coalesced: a session has at most one list_changed of each
// kind waiting and one being written.
func TestListChangedToAStalledClientIsCoalesced(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	w := initializedWire(t, srv, `{}`)
	// Make sure the session is initialized before the changes start.
	w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	w.recv()

	// From here on the client reads nothing.
	before := runtime.NumGoroutine()
	for i := range 500 {
		mcp.AddTool(srv, &mcp.Tool{Name: "t" + strconv.Itoa(i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		srv.RemoveTools("t" + strconv.Itoa(i))
	}
	if grown := runtime.NumGoroutine() - before; grown > 10 {
		t.Fatalf("1000 list changes to a client that does not read left %d more goroutines", grown)
	}
	// Once the client reads again, the changes arrive, coalesced: one
	// being written when it stalled, and one more for all the rest.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	changes := 0
	for {
		got := w.recv()
		if strings.Contains(got, `"id":2`) {
			break
		}
		if strings.Contains(got, "notifications/tools/list_changed") {
			changes++
		}
	}
	if changes == 0 {
		// The coalesced send may come after the ping's reply.
		if got := w.recv(); strings.Contains(got, "notifications/tools/list_changed") {
			changes++
		}
	}
	if changes < 1 || changes > 2 {
		t.Errorf("got %d list_changed notifications for 1000 changes, want 1 or 2", changes)
	}
}

// A client that stops reading holds up neither the server's call to
// ResourceUpdated nor the update to other clients: each session gets its
// update on its own, coalesced per URI like list changes.
func TestResourceUpdatedNotHeldByAStalledClient(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	open := func() *wire {
		w := initializedWire(t, srv, `{}`)
		w.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///x"}}`)
		w.recv()
		return w
	}
	open() // stalled: reads nothing from here on
	reader := open()
	done := make(chan struct{})
	go func() {
		srv.ResourceUpdated(context.Background(), "file:///x")
		close(done)
	}()
	if got := reader.recv(); !strings.Contains(got, "notifications/resources/updated") {
		t.Fatalf("the reading client got %s", got)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ResourceUpdated is held by the client that does not read")
	}
}
