package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// A server's answer to the version handshake is its own text, as long as
// a message may be: the error that quotes it is cut, so that a hostile
// server cannot make the error (and every log line that prints it) a
// megabyte long.
func TestVersionErrorsQuoteTheServerShort(t *testing.T) {
	huge := strings.Repeat("v", 1<<20)
	for _, tt := range []struct {
		version string
		answer  any
	}{
		{mcp.Version20260728, &mcp.DiscoverResult{SupportedVersions: []string{huge, huge}}},
		{mcp.Version20251125, rawJSON(`{"protocolVersion":"` + huge + `","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)},
	} {
		a, b := transport.Pipe(nil)
		srv := transport.NewConn(b, transport.HandlerFunc(func(ctx context.Context, conn *transport.Conn, r *transport.Request) {
			_ = conn.Reply(ctx, r, tt.answer)
		}), nil)
		_, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: tt.version})
		srv.Close()
		if err == nil {
			t.Fatalf("%s: connected to a server that speaks no version of ours", tt.version)
		}
		if n := len(err.Error()); n > 1024 {
			t.Errorf("%s: the error is %d bytes long: %.200s...", tt.version, n, err)
		}
	}
}
