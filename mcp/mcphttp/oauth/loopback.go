package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Loopback is a UserAgent for command-line programs: it serves the
// redirect on a loopback port (OAuth 2.1 §8.4.2, RFC 8252 §7.3) and has
// the user open the authorization URL in a browser (Show prints it). Only
// a callback carrying the state of an authorization in progress is taken,
// and only once: another local process cannot end the login with a forged
// one, nor a late one outlive the authorization it answered. Several
// authorizations may wait at once, each for its own callback.
type Loopback struct {
	// Show tells the user to open authURL; nil prints nothing (set it).
	Show func(authURL string)

	ln  *limitListener
	srv *http.Server

	mu sync.Mutex
	// pending holds, by state, the authorizations waiting: a Transport
	// serving several endpoints may run several at once through one
	// Loopback, and each takes only its own callback.
	pending map[string]chan url.Values
}

// ListenLoopback listens on 127.0.0.1 at port (0: any free port) and
// serves the callback at /callback. Close it when done.
func ListenLoopback(port int) (*Loopback, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback redirect listener: %w", err)
	}
	lim := &limitListener{Listener: ln, max: loopbackLimits.conns, conns: map[net.Conn]http.ConnState{}}
	l := &Loopback{ln: lim, pending: map[string]chan url.Values{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", l.callback)
	l.srv = &http.Server{
		Handler: mux,
		// A browser sends its callback at once and in a few hundred
		// bytes; anything slower or larger is not one. The bounds are on
		// what another local process (or a page in the user's browser)
		// can make this one hold while the user logs in.
		ReadHeaderTimeout: loopbackLimits.header,
		ReadTimeout:       loopbackLimits.read,
		WriteTimeout:      loopbackLimits.read,
		IdleTimeout:       loopbackLimits.header,
		MaxHeaderBytes:    8 << 10,
		ConnState:         lim.track,
		ErrorLog:          log.New(io.Discard, "", 0), // a flood is not the user's concern
	}
	// One request per connection: every answer closes its connection,
	// so a connection holds a slot for one request only.
	l.srv.SetKeepAlivesEnabled(false)
	go func() { _ = l.srv.Serve(lim) }()
	return l, nil
}

// loopbackLimits are the bounds of the redirect listener (variables for
// the tests, which shorten the timeouts).
var loopbackLimits = struct {
	conns        int           // connections open at once; more are closed on accept
	header, read time.Duration // to read a request's header, all of it
}{conns: 16, header: 5 * time.Second, read: 10 * time.Second}

// limitListener closes connections accepted past max open ones, and
// knows each one's state so that Close can cut those that have not sent
// a request yet.
type limitListener struct {
	net.Listener
	max int

	mu     sync.Mutex
	conns  map[net.Conn]http.ConnState
	closed bool
}

// Close closes the listener once: Loopback.Close closes it before the
// server's Shutdown does, so that no connection comes in between cutting
// the waiting ones and the shutdown.
func (ll *limitListener) Close() error {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if ll.closed {
		return nil
	}
	ll.closed = true
	return ll.Listener.Close()
}

func (ll *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ll.mu.Lock()
		full := len(ll.conns) >= ll.max
		if !full {
			ll.conns[c] = http.StateNew
		}
		ll.mu.Unlock()
		if !full {
			return c, nil
		}
		// Closed at once, not queued: a flood costs this process a
		// file descriptor for a moment, not a goroutine and a buffer
		// each. The browser's own connection may be among those closed;
		// it retries, or the user reloads the page.
		c.Close()
	}
}

// track is the server's ConnState hook.
func (ll *limitListener) track(c net.Conn, st http.ConnState) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(ll.conns, c)
	default:
		if _, ok := ll.conns[c]; ok {
			ll.conns[c] = st
		}
	}
}

// cutWaiting closes the connections that have not sent a request (or
// sit idle): nothing is owed to them.
func (ll *limitListener) cutWaiting() {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	for c, st := range ll.conns {
		if st == http.StateNew || st == http.StateIdle {
			c.Close()
		}
	}
}

// RedirectURL is the URL to put in Config.RedirectURL.
func (l *Loopback) RedirectURL() string {
	return "http://" + l.ln.Addr().String() + "/callback"
}

// closeGrace bounds how long Close lets a response being written finish.
const closeGrace = time.Second

// Close stops the listener. A response being written (the browser's page,
// whose callback Authorize may already have returned) is let finish, for
// up to closeGrace: a program that closes as soon as Authorize returns
// would otherwise cut the browser's connection before its page.
//
// Connections that have not sent a request yet (a slow or idle client's)
// are closed at once: Shutdown would wait for them until the grace ran
// out.
func (l *Loopback) Close() error {
	l.ln.Close()
	l.ln.cutWaiting()
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		return l.srv.Close()
	}
	return nil
}

func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	// The browser sends the Host of RedirectURL, 127.0.0.1. A page that
	// rebinds its own name to 127.0.0.1 reaches this port under that
	// name: it cannot guess a state, but it has no business here, so it
	// is answered before any state is looked at.
	if !loopbackHost(r.Host) {
		http.Error(w, "this listener answers only at 127.0.0.1", http.StatusMisdirectedRequest)
		return
	}
	q := r.URL.Query()
	// The state is used up under the lock Authorize removes it under: a
	// callback is taken once, and only while the authorization it
	// answers waits, so none is left over for the next. Each pending
	// state is compared in constant time: a lookup in the map would let
	// the timing tell a guessed prefix.
	got := []byte(q.Get("state"))
	ok := false
	l.mu.Lock()
	for state, ch := range l.pending {
		if subtle.ConstantTimeCompare(got, []byte(state)) == 1 {
			delete(l.pending, state)
			ch <- q // room for one, and only one send per state
			ok = true
			break
		}
	}
	l.mu.Unlock()
	if !ok {
		http.Error(w, "no authorization in progress with this state", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "Authorization received. You can close this window.")
}

// loopbackHost reports whether host, a request's Host header, names the
// address the listener is on (with or without its port).
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return host == "127.0.0.1"
}

// Authorize implements UserAgent: it shows authURL and waits for the
// callback, or for ctx to end.
func (l *Loopback) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("oauth: authorization URL without state")
	}
	ch := make(chan url.Values, 1)
	l.mu.Lock()
	if _, dup := l.pending[state]; dup {
		l.mu.Unlock()
		return nil, errors.New("oauth: an authorization with this state is already waiting")
	}
	l.pending[state] = ch
	l.mu.Unlock()
	// Removed on return, whatever ended the wait: a callback that comes
	// later finds no authorization and is refused.
	defer func() {
		l.mu.Lock()
		if l.pending[state] == ch {
			delete(l.pending, state)
		}
		l.mu.Unlock()
	}()
	if l.Show != nil {
		l.Show(authURL)
	}
	select {
	case q := <-ch:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the browser: %w", ctx.Err())
	}
}
