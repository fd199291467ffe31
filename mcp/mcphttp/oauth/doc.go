// Package oauth is the client side of MCP authorization: an
// http.RoundTripper that answers a server's 401 by running the OAuth 2.1
// flow the authorization specification describes, then retries the
// request with the token it obtained.
//
// Put a Transport under the HTTP client of mcphttp.NewStream:
//
//	t := &oauth.Transport{Config: &oauth.Config{
//		RedirectURL: "http://127.0.0.1:8765/callback",
//		UserAgent:   myBrowserStep,
//		Store:       oauth.NewMemoryStore(),
//	}}
//	stream, err := mcphttp.NewStream(ctx, url, &mcphttp.ClientOptions{
//		Client: &http.Client{Transport: t},
//	})
//
// On a 401 the Transport discovers the protected resource metadata
// (RFC 9728: the resource_metadata of WWW-Authenticate, else the
// well-known paths), then the authorization server's metadata (RFC 8414,
// OpenID discovery, the 2025-03-26 fallbacks), checks that the resource
// is the server asked and that the metadata's issuer is the one asked,
// registers the client (pre-registered, a client ID metadata document, or
// dynamic registration, RFC 7591) and obtains a token with the Grant of
// the Config: the authorization code with PKCE S256 and the resource
// indicator (RFC 8707) by default, or client credentials, a JWT bearer
// assertion (workload identity) or enterprise-managed authorization
// (token exchange for an ID-JAG). A 403 with insufficient_scope asks again
// for the union of the scopes, at most MaxStepUp times per request. Tokens
// are refreshed when they expire, and bound to a DPoP key (RFC 9449) when
// the authorization server supports it.
//
// Tokens, codes, secrets and verifiers never appear in an error or a log
// line: Token and Credentials redact themselves when formatted or logged,
// and errors name endpoints and OAuth error codes only.
//
// Limits: every response body read from an authorization server or a
// metadata document is bounded by MaxResponseBytes (1 MiB); a request
// runs at most one full authorization per 401 and MaxStepUp (default 2)
// step-ups per 403; DPoP nonce challenges are answered once per request.
package oauth
