// Package mcphttp is the Streamable HTTP transport of MCP, both ends, and
// the diagnostic echo for HTTP.
//
//   - Server: NewHandler serves an mcp.Server as an http.Handler on one
//     endpoint. Legacy clients (2024-11-05 to 2025-11-25) get a session per
//     initialize (Mcp-Session-Id) with a GET stream; stateless clients
//     (2026-07-28) get a session per POST. Answers are one JSON object or
//     an SSE stream that can be resumed with Last-Event-ID. Host and Origin
//     are checked against loopback by default (DNS rebinding). Everything
//     a client can make it hold is bounded: bodies read at once, slow
//     bodies and slow readers, streams retained for resumption, idle and
//     live sessions, in all and per authenticated user (HandlerOptions;
//     the Limits table of docs/HTTP.md).
//   - Replicas: a server run as several processes behind a load balancer
//     shares legacy sessions, stream events and clients' answers through
//     HandlerOptions.Sessions, Events and Relay (SessionStore, EventStore,
//     Relay; MemoryStore and MemoryRelay in one process, the nested module
//     mcphttp/redisstore on Redis), with mcp.ServerOptions.Bus and
//     StateKeys for changes and requestState (docs/DEPLOY.md).
//     mcphttp/replicatest holds the scenarios replicas must pass.
//   - RequireBearer is middleware that admits only requests carrying a
//     bearer token, compared in constant time. RequireAuth is its OAuth
//     form: a TokenVerifier checks each access token, refusals carry the
//     WWW-Authenticate challenge (401, or 403 insufficient_scope) that
//     points clients at the ResourceMetadataHandler, and tools see the
//     caller through SessionAuth. The client side of OAuth is the
//     subpackage oauth (docs/AUTH.md).
//   - Client: NewStream returns a transport.Stream to a server URL for
//     client.Connect; NewFramer is the transport.Framer under it. It keeps
//     the session and negotiated version, sends the standard headers of
//     each era, mirrors parameters annotated "x-mcp-header" into
//     Mcp-Param-* headers (SEP-2243), and resumes interrupted streams.
//   - EchoHandler is middleware that logs each request and response
//     readably with secrets masked; transport.TapFramer is its counterpart
//     for stdio and other framers.
//
// HTTP lives in its own package so that a program that speaks MCP over
// stdio, importing only mcp, transport and client, does not link net/http,
// crypto/tls and crypto/x509, whose initialisation every process start
// would pay for in CPU time and page faults. The handler is built on mcp's public
// API, the way any other transport would be: Server.Connect on a stream
// over a framer of its own per session, Server.CheckVersion for the
// version header, Server.Logger.
//
// docs/HTTP.md describes both ends, the options and the security checks.
package mcphttp
