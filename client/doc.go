// Package client is the MCP client: it connects to a server over any
// transport.Stream, speaks both protocol eras (the initialize handshake of
// 2024-11-05 to 2025-11-25, and the stateless 2026-07-28 revision in which
// every request carries its own metadata), and offers typed calls.
//
// Every call has a timeout (Options.Timeout, 60 s by default, overridden
// per call with WithTimeout; a deadline on the context wins), can be
// cancelled through its context (the server is then sent
// notifications/cancelled), and is available as a blocking method or as a
// Future. Errors are typed: *mcp.Error for a JSON-RPC error from the server,
// ErrTimeout, and ErrClosed, which carries the cause of the close.
//
// The request/response bookkeeping is sourcegraph/jsonrpc2's, through
// transport.Conn; this package adds MCP on top.
package client
