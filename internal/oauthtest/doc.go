// Package oauthtest is a small OAuth 2.1 authorization server for tests:
// metadata (RFC 8414), dynamic registration (RFC 7591), an authorization
// endpoint that approves at once, and a token endpoint for the
// authorization code (PKCE S256 enforced) and refresh token grants. It
// remembers every secret it issues, so tests can look for them in logs.
// Test code only: it keeps everything in memory and checks little else.
package oauthtest
