package mcphttp

import (
	"net/http"
	"sync"
)

// DefaultMaxIdleConnsPerHost is how many idle connections to the server
// the client a Framer makes for itself (ClientOptions.Client nil) keeps
// open. Every call in flight holds a connection of its own (its POST), so
// http.DefaultTransport's 2 would close and reopen a connection for most
// calls once more than two run at once.
const DefaultMaxIdleConnsPerHost = 64

// defaultClient is the client of framers given none: http.DefaultTransport's
// settings (proxy from the environment, timeouts, HTTP/2) with
// DefaultMaxIdleConnsPerHost, shared so that framers to one server share
// its connections.
var defaultClient = sync.OnceValue(func() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{} // replaced by the program: use it as it is
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	t.MaxIdleConns = max(t.MaxIdleConns, 2*DefaultMaxIdleConnsPerHost)
	return &http.Client{Transport: t}
})
