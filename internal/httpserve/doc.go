// Package httpserve is how the example servers (winbridge, windbg,
// everything-server) serve MCP over HTTP from their command line: a
// listener that refuses an address other hosts can reach unless the
// command says so and requires a token, the bearer token read from a
// file or the environment, and an http.Server with timeouts that suit
// Streamable HTTP. docs/HTTP.md ("Authentication") describes the policy.
package httpserve
