package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// login (mcpc login [FLAGS] URL) authorizes mcpc at the MCP server at URL
// with the OAuth authorization code flow: it prints the URL to open in a
// browser, serves the redirect on 127.0.0.1, and keeps the credentials in
// a file only the user can read (oauth.FileStore). It prints the
// endpoint, the authorization server and the scope granted, never a token.
func login(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpc login", flag.ContinueOnError)
	fs.SetOutput(stderr)
	store := fs.String("store", defaultStore(), "the token `file` (created 0600)")
	port := fs.Int("port", 0, "the loopback `port` of the redirect (0: any free one; fix it when the client is pre-registered)")
	clientID := fs.String("client-id", "", "a pre-registered client `id` (default: dynamic registration)")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the browser")
	verbose := fs.Bool("v", false, "log the flow's steps (never a secret) to stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpc login [FLAGS] URL")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitFailure
	}
	if fs.NArg() != 1 || *store == "" {
		fs.Usage()
		return exitFailure
	}
	endpoint := fs.Arg(0)
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	lb, err := oauth.ListenLoopback(*port)
	if err != nil {
		printError(stderr, err)
		return exitFailure
	}
	defer lb.Close()
	lb.Show = func(u string) {
		// The URL is the authorization server's: escaped as its other text is.
		fmt.Fprintf(stderr, "Open this URL in a browser to authorize mcpc:\n\n  %s\n\nWaiting for the redirect to %s ...\n", printable(u, maxErrorShown), lb.RedirectURL())
	}
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	fstore := &oauth.FileStore{Path: *store}
	cfg := &oauth.Config{
		ClientName:  "mcpc",
		ClientID:    *clientID,
		RedirectURL: lb.RedirectURL(),
		UserAgent:   lb,
		Store:       fstore,
		Logger:      logger,
	}
	// The framer's own client (its bounds on response headers and
	// redirects), its requests authorized by cfg.
	hc := mcphttp.DefaultClient()
	hc.Transport = &oauth.Transport{Base: hc.Transport, Config: cfg}
	stream, err := mcphttp.NewStream(ctx, endpoint, &mcphttp.ClientOptions{Client: hc, Logger: logger, NoListen: true})
	if err != nil {
		printError(stderr, err)
		return exitFailure
	}
	c, err := client.Connect(ctx, stream, &client.Options{ClientInfo: &mcp.Implementation{Name: "mcpc", Version: "0.1.0"}})
	if err != nil {
		printError(stderr, err)
		return exitFailure
	}
	defer c.Close()
	// A server may admit initialize without a token: a request after it
	// is what makes sure the login happened.
	if _, err := c.ListTools(ctx); err != nil {
		printError(stderr, err)
		return exitFailure
	}
	creds, err := fstore.Load(ctx, endpoint)
	if err != nil || creds == nil || creds.Token == nil {
		fmt.Fprintln(stderr, "mcpc: the server asked for no authorization; nothing stored")
		return exitFailure
	}
	// The issuer and scope are the authorization server's text.
	_ = writeJSON(stdout, map[string]any{"endpoint": endpoint, "issuer": creds.Issuer, "scope": creds.Token.Scope, "expiry": creds.Token.Expiry, "store": *store})
	return exitOK
}

// defaultStore is tokens.json in the user's configuration directory.
func defaultStore() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "winbridge", "tokens.json")
}
