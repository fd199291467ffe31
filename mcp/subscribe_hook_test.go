package mcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// TestSubscribeHook: ServerOptions.Subscribe sees each subscribe and
// unsubscribe; its error fails the request, and the session is then not
// subscribed (ResourceUpdated does not reach it).
func TestSubscribeHook(t *testing.T) {
	type call struct {
		uri string
		on  bool
	}
	calls := make(chan call, 8)
	s := mcp.NewServer(&mcp.Implementation{Name: "hook"}, &mcp.ServerOptions{
		Subscribe: func(_ context.Context, ss *mcp.ServerSession, uri string, on bool) error {
			calls <- call{uri, on}
			if uri == "mem://no" {
				return &mcp.Error{Code: -32001, Message: "refused"}
			}
			return nil
		}})
	updates := make(chan string, 8)
	a, b := transport.Pipe(nil)
	s.Connect(a)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, b, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion, OnResourceUpdated: func(uri string) { updates <- uri }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rpc *mcp.Error
	if err := c.Subscribe(ctx, "mem://no"); !errors.As(err, &rpc) || rpc.Code != -32001 {
		t.Errorf("refused subscribe: %v", err)
	}
	if err := c.Subscribe(ctx, "mem://yes"); err != nil {
		t.Fatal(err)
	}
	if err := c.Unsubscribe(ctx, "mem://yes"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []call{{"mem://no", true}, {"mem://yes", true}, {"mem://yes", false}} {
		if got := <-calls; got != want {
			t.Errorf("hook saw %+v, want %+v", got, want)
		}
	}
	if err := c.Subscribe(ctx, "mem://yes"); err != nil {
		t.Fatal(err)
	}
	s.ResourceUpdated(ctx, "mem://no")
	s.ResourceUpdated(ctx, "mem://yes")
	if got := <-updates; got != "mem://yes" {
		t.Errorf("an update of %q reached the session", got)
	}
}
