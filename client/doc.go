// Package client is the MCP client: it connects to a server over any
// transport.Stream, speaks both protocol eras (the initialize handshake of
// 2024-11-05 to 2025-11-25, and the stateless 2026-07-28 revision in which
// every request carries its own metadata), and offers typed calls.
//
// Three layers, each usable on its own:
//
//   - Client (Connect) is one connection. Every call has a timeout
//     (Options.Timeout, 60 s by default, overridden per call with
//     WithTimeout; a deadline on the context wins), which bounds the whole
//     call however many pages or input rounds it takes, can be cancelled through
//     its context (the server is then sent notifications/cancelled), and is
//     available as a blocking method or as a Future. Server-to-client
//     requests (sampling, elicitation, roots) reach the handlers of Options,
//     whose context ends if the server cancels the request, and the multi
//     round-trip input of 2026-07-28 is driven automatically.
//   - Process (Launch, Npx) is a server running as a child process that
//     the client owns: its stderr is drained and kept as a tail, its exit
//     fails pending calls at once with the status, it can be restarted with
//     backoff and health-checked, and Close stops its whole process tree.
//   - Manager runs the servers of an mcpServers configuration (the format
//     of Claude Desktop and Cursor; ParseConfig), starting each on first use
//     and aggregating their tools under names every major host accepts.
//
// Errors are typed: *mcp.Error for a JSON-RPC error from the server,
// ErrTimeout, ErrClosed (which carries the cause of the close) and
// *ExitError for a child that exited.
//
// The request/response bookkeeping is sourcegraph/jsonrpc2's, through
// transport.Conn; this package adds MCP on top. docs/CLIENT.md is the guide.
package client
