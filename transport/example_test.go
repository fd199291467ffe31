package transport_test

import (
	"context"
	"fmt"
	"net"

	"github.com/winbridge/winbridge/transport"
)

// A Conn on each end of an in-memory pipe: one answers, one calls.
func ExampleConn() {
	a, b := transport.Pipe(nil)
	server := transport.NewConn(b, transport.HandlerFunc(func(ctx context.Context, c *transport.Conn, r *transport.Request) {
		if !r.IsNotification() {
			go c.Reply(ctx, r, map[string]string{"method": r.Method})
		}
	}), nil)
	defer server.Close()
	client := transport.NewConn(a, nil, nil)
	defer client.Close()

	var res struct{ Method string }
	if err := client.Call(context.Background(), "hello/world", nil, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Method)
	// Output: hello/world
}

// The stream answers malformed input itself and restores any id the peer
// chose, here one far beyond 64 bits.
func ExampleNewStream() {
	c1, c2 := net.Pipe()
	defer c1.Close()
	server := transport.NewConn(transport.NewStream(transport.NewLineFramer(c2, 0), nil),
		transport.HandlerFunc(func(ctx context.Context, c *transport.Conn, r *transport.Request) {
			go c.Reply(ctx, r, "ok")
		}), nil)
	defer server.Close()

	go c1.Write([]byte("not json\n" + `{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"m"}` + "\n"))
	buf := make([]byte, 512)
	for range 2 {
		n, _ := c1.Read(buf)
		fmt.Print(string(buf[:n]))
	}
	// Output:
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid JSON"}}
	// {"jsonrpc":"2.0","id":-123456789012345678901234567890,"result":"ok"}
}
