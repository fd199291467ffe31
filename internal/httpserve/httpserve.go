package httpserve

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// MinTokenLen is the shortest bearer token accepted: a token is all that
// stands between the network and the tools.
const MinTokenLen = 16

// Timeouts of Server. Bodies and writes are bounded per request by
// mcphttp.Handler itself (BodyTimeout, WriteTimeout); these bound what
// the handler does not see.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second // requests to other paths; the MCP handler lifts it after the body
	IdleTimeout       = 2 * time.Minute
)

// Config is what a command's flags and environment say about serving.
type Config struct {
	Addr        string // -http: host:port
	AllowRemote bool   // -http-allow-remote: a non-loopback address is meant
	TokenFile   string // -http-token-file: a file holding the token
	Token       string // the token from the environment; TokenFile wins
	Redis       string // -redis: the URL of the Redis that replicas share

	replicas Replicas // opened by OpenReplicas
}

// ErrConfig marks the errors of Listen that the settings cause (the kind
// of address, the token), as opposed to failures to listen: commands
// exit with their bad-settings status on them.
var ErrConfig = errors.New("httpserve: bad settings")

// ErrRemote is the refusal of a listen address other hosts can reach
// without -http-allow-remote and a token; it is an ErrConfig.
var ErrRemote = errors.New("refusing to serve MCP on an address other hosts can reach")

type configError struct{ err error }

func (e configError) Error() string        { return e.err.Error() }
func (e configError) Unwrap() error        { return e.err }
func (e configError) Is(target error) bool { return target == ErrConfig }

func configErrorf(format string, args ...any) error {
	return configError{fmt.Errorf(format, args...)}
}

// Endpoint is a listener that passed the checks, and its token.
type Endpoint struct {
	Listener net.Listener
	Token    string // "" when none is required
	Remote   bool   // the listener is on a non-loopback address

	replicas Replicas
}

// Listen reads the token and listens on c.Addr. The address is judged by
// what the listener actually bound: ":8080", "0.0.0.0", "[::]" and a name
// that resolves to a non-loopback address are remote, and are refused
// (the listener closed) unless c.AllowRemote is set and a token given.
func (c *Config) Listen() (*Endpoint, error) {
	token, err := c.token()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return nil, err
	}
	remote := !isLoopback(ln.Addr())
	switch {
	case remote && !c.AllowRemote:
		ln.Close()
		return nil, configErrorf("%w: %s is not a loopback address, and MCP over HTTP runs tools for whoever connects; "+
			"listen on 127.0.0.1, or pass -http-allow-remote with a token (-http-token-file)", ErrRemote, ln.Addr())
	case remote && token == "":
		ln.Close()
		return nil, configErrorf("%w: -http-allow-remote needs a bearer token (-http-token-file or the environment) so that not everyone on the network can run tools", ErrRemote)
	}
	return &Endpoint{Listener: ln, Token: token, Remote: remote, replicas: c.replicas}, nil
}

// token reads the token from TokenFile, or takes Token, and checks it.
func (c *Config) token() (string, error) {
	token, from := c.Token, "the environment"
	if c.TokenFile != "" {
		b, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return "", configErrorf("reading the HTTP token: %w", err)
		}
		token, from = string(b), c.TokenFile
	}
	token = strings.TrimSpace(token)
	if token == "" {
		if c.TokenFile != "" {
			return "", configErrorf("the HTTP token file %s is empty", c.TokenFile)
		}
		return "", nil
	}
	if len(token) < MinTokenLen {
		return "", configErrorf("the HTTP token from %s has %d characters; use at least %d", from, len(token), MinTokenLen)
	}
	for _, r := range token {
		if !isTokenChar(r) {
			return "", configErrorf("the HTTP token from %s has a character outside A-Z a-z 0-9 - . _ ~ + / =", from)
		}
	}
	return token, nil
}

// isTokenChar reports whether r may appear in a bearer token (RFC 6750
// b64token).
func isTokenChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/=", r)
}

func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// Options adjusts the MCP handler's options to the endpoint: on a remote
// address any Host is accepted (the loopback default would refuse every
// request), since the token, which a DNS-rebinding page cannot know, is
// what keeps strangers out. Origin stays loopback-only.
func (e *Endpoint) Options(o *mcphttp.HandlerOptions) {
	if e.Remote && o.AllowedHosts == nil {
		o.AllowedHosts = []string{"*"}
	}
	if e.replicas != nil {
		e.replicas.HandlerOptions(o)
	}
}

// Handler requires the token, when there is one, before h.
func (e *Endpoint) Handler(h http.Handler) http.Handler {
	if e.Token == "" {
		return h
	}
	return mcphttp.RequireBearer(e.Token, h)
}

// Server returns an http.Server for h with the timeouts above and no
// WriteTimeout, which would end every SSE stream after that long.
func Server(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout, IdleTimeout: IdleTimeout}
}
