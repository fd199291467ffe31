package transport

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sourcegraph/jsonrpc2"
)

// The direct path must be taken with the pinned jsonrpc2: if a release
// changes anyMessage, everything still works through encoding/json, and
// this test is what says the fast path was lost.
func TestJSONRPC2LayoutRecognized(t *testing.T) {
	a, b := Pipe(nil)
	srv := NewConn(a, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		_ = c.Reply(ctx, r, r.Params)
	}), nil)
	defer srv.Close()
	cli := NewConn(b, nil, nil)
	defer cli.Close()
	var got json.RawMessage
	if err := cli.Call(context.Background(), "echo", json.RawMessage(`{"x":1}`), &got); err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"x":1}` {
		t.Fatalf("echo returned %s", got)
	}
	known := rpcMessageType.Load()
	if known == nil {
		t.Fatal("jsonrpc2's message type was not recognized: the stream fell back to encoding/json")
	}
	if name := (*known).Elem().Name(); name != "anyMessage" {
		t.Fatalf("recognized %s", name)
	}
}

// A look-alike from another package is not taken for jsonrpc2's type.
func TestRPCMessageLookalikeRejected(t *testing.T) {
	type anyMessage struct {
		//lint:ignore U1000 the fields mimic jsonrpc2's layout, which is what is checked
		request *jsonrpc2.Request
		//lint:ignore U1000 likewise
		response *jsonrpc2.Response
	}
	if isRPCMessage(reflect.TypeFor[*anyMessage]()) {
		t.Fatal("a type of package transport was accepted")
	}
	if asRPCMessage(&jsonrpc2.Request{}) != nil || asRPCMessage(nil) != nil {
		t.Fatal("a non-message was accepted")
	}
}

// What deliver hands jsonrpc2 directly equals what jsonrpc2 decodes from
// the same message through encoding/json. (Params are kept byte for byte
// by the direct path, while jsonrpc2's decoder re-encodes them, turning
// "\u00e9" into "é"; hence params without escapes here.)
func TestDeliverMatchesEncoding(t *testing.T) {
	params := json.RawMessage(`{"a":[1,"é",{"b":null}]}`)
	for _, req := range []*jsonrpc2.Request{
		rpcRequest("tools/call", 7, false, params),
		rpcRequest("notifications/cancelled", 8, true, params),
		rpcRequest("ping", 9, false, nil),
	} {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON jsonrpc2.Request
		if err := json.Unmarshal(b, &viaJSON); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&viaJSON, req, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: direct differs from through JSON (-json +direct):\n%s", b, diff)
		}
	}
}
