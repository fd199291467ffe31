package client

import (
	"context"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// ConnectServer connects a client to srv, a server in this process,
// through an in-memory pipe: no child process, no socket. Every message is
// still encoded and decoded as it would be on stdio, so a test or a
// program sees what a client of the server's stdio or HTTP would see.
// Closing the client ends srv's session; srv itself goes on serving
// others. It is Connect on one end of transport.Pipe, with srv.Connect on
// the other.
func ConnectServer(ctx context.Context, srv *mcp.Server, opts *Options) (*Client, error) {
	a, b := transport.Pipe(nil)
	srv.Connect(a)
	return Connect(ctx, b, opts) // which closes b, and so the session, on failure
}
