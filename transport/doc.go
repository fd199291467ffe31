// Package transport moves whole JSON-RPC 2.0 messages between MCP peers and
// runs github.com/sourcegraph/jsonrpc2 on top of them.
//
// Three layers, bottom up:
//
//   - A Framer reads and writes one message at a time over some medium:
//     NewLineFramer speaks newline-delimited JSON over any io.ReadWriteCloser
//     (stdin/stdout, pipes, sockets); Pipe connects two in-memory framers;
//     the Streamable HTTP transport is another Framer, in package
//     mcp/mcphttp, kept out of this package so that stdio programs do not
//     link net/http.
//   - A Stream is the jsonrpc2.ObjectStream over a Framer. It validates every
//     incoming message and answers the malformed ones itself (parse errors,
//     invalid requests, oversized lines, batches) without closing the
//     connection. A response it cannot accept (oversized, malformed, not
//     valid UTF-8) fails the call it answers at once when its id can be
//     read. Each write must complete within StreamOptions.WriteTimeout,
//     or the stream fails for good. It translates request ids: jsonrpc2
//     sees small stream-local numbers, while the peer gets back its own id
//     byte for byte, whatever JSON integer or string it chose.
//   - A Conn is a jsonrpc2.Conn on a Stream with what MCP needs around it:
//     futures, per-call timeouts, a handler that receives raw params, and
//     payloads carried beside jsonrpc2 so that large messages skip its
//     reflection-based codec. Package mcp builds its sessions on Conn.
//
// The Stream hands jsonrpc2 its messages directly rather than through
// encoding/json, once a reflective check has recognized jsonrpc2's message
// type; any other jsonrpc2 release gets the encoding/json path.
//
// TapFramer wraps any Framer to log each frame, secrets masked: the
// diagnostic echo for stdio (mcphttp.EchoHandler is the one for HTTP).
//
// Stdio prepares the process's standard streams for a server: it keeps the
// real stdout for protocol messages and points descriptor 1 at stderr, so a
// stray fmt.Println in user code cannot corrupt the stream. Its pipes are
// served by Go's poller where the platform allows.
package transport
