package mcphttp

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// DefaultMaxIdleConnsPerHost is how many idle connections to the server
// the client a Framer makes for itself (ClientOptions.Client nil) keeps
// open. Every call in flight holds a connection of its own (its POST), so
// http.DefaultTransport's 2 would close and reopen a connection for most
// calls once more than two run at once.
const DefaultMaxIdleConnsPerHost = 64

// maxResponseHeaderBytes bounds the response headers the framer's own
// client reads, instead of net/http's 10 MiB: a response's header lives
// as long as the response, and an SSE response as long as its call, so a
// server padding its headers made each call in flight hold 10 MiB. An MCP
// server's headers, with a proxy's and cookies, are a few KiB.
const maxResponseHeaderBytes = 1 << 20

// defaultClient is the client of framers given none: http.DefaultTransport's
// settings (proxy from the environment, timeouts, HTTP/2) with
// DefaultMaxIdleConnsPerHost and maxResponseHeaderBytes, shared so that
// framers to one server share its connections.
var defaultClient = sync.OnceValue(func() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{CheckRedirect: SameOriginRedirect} // replaced by the program: use it as it is
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	if t.MaxResponseHeaderBytes <= 0 {
		t.MaxResponseHeaderBytes = maxResponseHeaderBytes
	}
	t.MaxIdleConns = max(t.MaxIdleConns, 2*DefaultMaxIdleConnsPerHost)
	return &http.Client{Transport: t, CheckRedirect: SameOriginRedirect}
})

// DefaultClient returns a client like the one a Framer makes for itself
// when ClientOptions.Client is nil: http.DefaultTransport's settings with
// DefaultMaxIdleConnsPerHost idle connections per host, at most 1 MiB of
// response headers (net/http's default is 10 MiB, held as long as a
// response, and an SSE response lasts as long as its call), redirects
// followed within the origin only (SameOriginRedirect), and no overall
// timeout. A program that wraps the transport (an oauth.Transport's Base)
// or sets options of its own starts from it, keeping those bounds. The
// client is new, for the caller to change; its Transport is shared with
// the framers' own, and with their connections, and must not be modified.
func DefaultClient() *http.Client {
	c := *defaultClient()
	return &c
}

// maxRedirects is net/http's own bound on the redirects of one request.
const maxRedirects = 10

// SameOriginRedirect is an http.Client.CheckRedirect that follows a
// redirect within the origin of the first request only (scheme, host and
// port); the framer's own client has it. net/http forwards every header
// along a redirect except Authorization and cookies, and those only to
// the same domain: the framer's ClientOptions.Header (an API key), the
// session id and the message itself would go to any host the server
// names, and from https to plain http. Another origin's redirect is the
// request's response, which fails the call with its status. One more is
// followed: from http to https on the same host name (any port), the
// upgrade a server behind TLS answers plain requests with; it sends the
// headers to that host, encrypted now. A client of your own given to
// ClientOptions.Client can use it too.
func SameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0].URL
	same := strings.EqualFold(req.URL.Scheme, first.Scheme) && strings.EqualFold(originHost(req.URL), originHost(first))
	upgrade := strings.EqualFold(first.Scheme, "http") && strings.EqualFold(req.URL.Scheme, "https") &&
		strings.EqualFold(req.URL.Hostname(), first.Hostname())
	if !same && !upgrade {
		return http.ErrUseLastResponse
	}
	return nil
}

// originHost is u's host and port, the port made explicit.
func originHost(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if strings.EqualFold(u.Scheme, "https") {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
