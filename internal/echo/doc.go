// Package echo is the machinery behind the diagnostic echo of
// transport.TapFramer and mcphttp.EchoHandler: masking secrets in JSON and
// headers, cutting long text with a mark, and summarising JSON-RPC
// messages. It lives apart from both so that the HTTP half can share it
// without package transport linking net/http.
package echo
