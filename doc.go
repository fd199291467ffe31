// Package winbridge is an embeddable Model Context Protocol (MCP) library for
// Go and a bridge from Linux and WSL to Windows programs.
//
// The module is organised in layers, each its own package:
//
//   - transport moves whole JSON-RPC messages: newline-delimited JSON over
//     any byte stream (stdio, pipes, sockets) and in-memory pairs. It
//     validates every message, translates request ids so that the JSON-RPC
//     engine never sees what it cannot hold, and runs that engine,
//     github.com/sourcegraph/jsonrpc2, as Conn.
//   - mcp holds the protocol: the types of every revision from 2024-11-05 to
//     2026-07-28, and the dual-era Server with typed tools, resources,
//     prompts and server-to-client requests.
//   - mcp/mcphttp is the Streamable HTTP transport, server handler and
//     client stream, apart so that stdio programs do not link net/http.
//   - client is the MCP client: typed calls with futures, timeouts and
//     cancellation, the launching and supervision of servers that run as
//     child processes, and the Manager of an mcpServers configuration.
//   - winexec runs Windows programs from WSL with an exact argv, tree-wide
//     timeouts and correct output encodings, and exposes that as MCP tools.
//   - hdc exposes the HarmonyOS device connector as MCP tools on top of
//     winexec.
//   - mcp/mcphttp/oauth is the client side of MCP authorization: an
//     http.RoundTripper that runs the flow on a 401.
//   - gateway is the tool facade: one safe tool surface over many MCP
//     servers, with policy, validation, approval, budgets and audit.
//
// The examples directory holds runnable programs built on these packages.
// docs/ARCHITECTURE.md draws the data flow between them.
package winbridge
