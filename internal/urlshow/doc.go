// Package urlshow decides what part of a URL an error message or a log
// line may show.
//
// Remote MCP servers are often addressed with the secret in the URL: in
// the query (?api_key=...), in the path (/mcp/KEY/sse) or as userinfo
// (https://user:pass@host/mcp). Error text is what users paste into bug
// reports, and logs are kept and shared, so every package that names a
// server's URL in either goes through this one policy:
//
//   - the scheme, host and port show;
//   - a path segment shows only when it looks like a word of a route
//     (mcp, sse, v1, @owner, server-name): short, lower-case letters, no
//     digit but a version's; any other segment shows as "...";
//   - a query shows as "?..." (so the reader knows there was one), the
//     fragment and userinfo never show.
//
// The package knows URLs only (net/url), so that packages which must not
// link net/http can use it.
package urlshow
