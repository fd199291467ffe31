package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// remote is a Streamable HTTP server: --url, or a config entry with "url".
type remote struct {
	endpoint string
	headers  map[string]string // the config entry's; values never printed
}

// remoteSession is the client connected to a remote server, with what
// closes along with it.
type remoteSession struct {
	*client.Client
	lb *oauth.Loopback
}

// Close closes the connection, then the redirect listener.
func (r *remoteSession) Close() error {
	err := r.Client.Close()
	r.closeListener()
	return err
}

// connectRemote connects to a Streamable HTTP server. Unless the config
// entry sends its own Authorization header, requests go through an
// oauth.Transport whose store is the file that mcpc login writes: a stored
// token is sent, refreshed when it expires (or is refused), and when there
// is none the browser flow runs, the URL to open printed on stderr.
func connectRemote(ctx context.Context, f flags, r remote, copts *client.Options, stderr io.Writer) (*remoteSession, error) {
	logger := slog.New(slog.DiscardHandler)
	if f.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	header := http.Header{}
	static := false // the entry authorizes itself
	for k, v := range r.headers {
		header.Set(k, v)
		static = static || strings.EqualFold(k, "Authorization")
	}
	s := &remoteSession{}
	// The framer's own client: no overall timeout (an SSE response lasts
	// as long as its call), redirects within the server's origin, where
	// the -H headers may go (net/http forwards them to any host), and at
	// most 1 MiB of response headers. Over http.DefaultTransport a server
	// padding its headers made each response hold 10 MiB.
	hc := mcphttp.DefaultClient()
	if !static {
		lb, err := oauth.ListenLoopback(f.port)
		if err != nil {
			return nil, err
		}
		s.lb = lb
		lb.Show = func(u string) {
			// The URL is the authorization server's (its metadata's
			// endpoint): escaped as the server's other text is.
			fmt.Fprintf(stderr, "mcpc: %s asks for authorization. Open this URL in a browser to authorize mcpc (-timeout bounds the wait; mcpc login does this once):\n\n  %s\n\n", shownEndpoint(r.endpoint), printable(u, maxErrorShown))
		}
		cfg := &oauth.Config{
			ClientName:  "mcpc",
			ClientID:    f.clientID,
			RedirectURL: lb.RedirectURL(),
			UserAgent:   lb,
			Logger:      logger,
		}
		if f.store != "" {
			cfg.Store = &oauth.FileStore{Path: f.store}
		}
		hc.Transport = &oauth.Transport{Base: hc.Transport, Config: cfg}
	}
	// The framer lives as long as ctx, the run's.
	stream, err := mcphttp.NewStream(ctx, r.endpoint, &mcphttp.ClientOptions{Client: hc, Header: header, Logger: logger, NoListen: true})
	if err != nil {
		s.closeListener()
		return nil, err
	}
	o := *copts
	o.Logger = logger
	c, err := client.Connect(ctx, stream, &o)
	if err != nil {
		s.closeListener()
		return nil, err
	}
	s.Client = c
	return s, nil
}

func (r *remoteSession) closeListener() {
	if r.lb != nil {
		r.lb.Close()
	}
}
