package transport

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
)

func TestSmokeCallAndReply(t *testing.T) {
	a, b := Pipe(nil)
	srv := NewConn(b, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.IsNotification() {
			return
		}
		go c.Reply(ctx, r, map[string]any{"echo": r.Params, "method": r.Method})
	}), nil)
	defer srv.Close()
	cli := NewConn(a, nil, nil)
	defer cli.Close()
	var got struct {
		Echo   json.RawMessage
		Method string
	}
	if err := cli.Call(context.Background(), "x/y", map[string]int{"n": 1}, &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Echo) != `{"n":1}` || got.Method != "x/y" {
		t.Fatalf("got %+v", got)
	}
}

func TestSmokeRawIDs(t *testing.T) {
	c1, c2 := net.Pipe()
	srv := NewConn(NewStream(NewLineFramer(c2, 0), nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if !r.IsNotification() {
			go c.Reply(ctx, r, map[string]string{"m": r.Method})
		}
	}), nil)
	defer srv.Close()
	defer c1.Close()
	go io.WriteString(c1, `{"jsonrpc":"2.0","id":-18446744073709551617,"method":"a"}`+"\n"+`{"jsonrpc":"2.0","id":null,"method":"a"}`+"\n")
	buf := make([]byte, 4096)
	var all string
	for strings.Count(all, "\n") < 2 {
		n, err := c1.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		all += string(buf[:n])
	}
	if !strings.Contains(all, `{"jsonrpc":"2.0","id":-18446744073709551617,"result":{"m":"a"}}`) || !strings.Contains(all, `"id":null,"error":{"code":-32600`) {
		t.Fatalf("got %s", all)
	}
}
