package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Loopback is a UserAgent for command-line programs: it serves the
// redirect on a loopback port (OAuth 2.1 §8.4.2, RFC 8252 §7.3) and has
// the user open the authorization URL in a browser (Show prints it). Only
// a callback carrying the state of the authorization in progress is taken,
// and only once: another local process cannot end the login with a forged
// one, nor a late one outlive the authorization it answered.
type Loopback struct {
	// Show tells the user to open authURL; nil prints nothing (set it).
	Show func(authURL string)

	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	state   string
	results chan url.Values
}

// ListenLoopback listens on 127.0.0.1 at port (0: any free port) and
// serves the callback at /callback. Close it when done.
func ListenLoopback(port int) (*Loopback, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback redirect listener: %w", err)
	}
	l := &Loopback{ln: ln, results: make(chan url.Values, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
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
func (l *Loopback) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		return l.srv.Close()
	}
	return nil
}

func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// The state is checked and used up under the lock Authorize clears
	// it under: a callback is taken once, and only while the
	// authorization it answers waits, so none is left over for the next.
	l.mu.Lock()
	ok := l.state != "" && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(l.state)) == 1
	if ok {
		l.state = ""
		l.results <- q // room for one, and only one send per state
	}
	l.mu.Unlock()
	if !ok {
		http.Error(w, "no authorization in progress with this state", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "Authorization received. You can close this window.")
}

// setState starts waiting for state ("" stops), dropping a callback a
// previous authorization took but did not wait to receive.
func (l *Loopback) setState(state string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state = state
	select {
	case <-l.results:
	default:
	}
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
	l.setState(state)
	defer l.setState("")
	if l.Show != nil {
		l.Show(authURL)
	}
	select {
	case q := <-l.results:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the browser: %w", ctx.Err())
	}
}
