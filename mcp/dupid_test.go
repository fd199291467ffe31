package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// ServeDirect refuses a request whose id is in use by a request in
// progress, as a stream does. Before, the second took over the first's
// entry: notifications/cancelled for the id reached only the second, and
// the first ran on, out of the client's reach.
func TestServeDirectRefusesIDInProgress(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	started, ended := make(chan int, 4), make(chan int, 4)
	mcp.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		started <- in.N
		<-ctx.Done()
		ended <- in.N
		return nil, nil, nil
	})
	ss := directSession(t, srv)
	serveDirect(t, ss, initLine)
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), func([]byte) { t.Error("a notification was answered") })

	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{"n":1}}}`),
			func(b []byte) { t.Errorf("the cancelled call was answered: %s", b) })
	}()
	if n := <-started; n != 1 {
		t.Fatalf("started %d", n)
	}
	second := make(chan string, 1)
	go ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{"n":2}}}`),
		func(b []byte) { second <- string(b) })
	select {
	case got := <-second:
		if !strings.Contains(got, `"id":7,"error":{"code":-32600,"message":"invalid request: id 7 is already in use`) {
			t.Fatalf("a second request under id 7: %s", got)
		}
	case <-started:
		ss.Close() // ends both handlers
		t.Fatal("a second request ran under id 7, in use by the first")
	}
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`), func([]byte) {})
	if n := <-ended; n != 1 {
		t.Fatalf("ended %d, want the first call", n)
	}
	<-firstDone
	select {
	case n := <-started:
		t.Fatalf("call %d ran under an id in use", n)
	default:
	}
	// The id is free again once its request is done.
	go func() {
		ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{"n":3}}}`), func([]byte) {})
	}()
	if n := <-started; n != 3 {
		t.Fatalf("started %d", n)
	}
	ss.Close()
	if n := <-ended; n != 3 {
		t.Fatalf("ended %d", n)
	}
}
