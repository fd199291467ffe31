package httpserve

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

const token = "0123456789abcdef-token"

// An address other hosts can reach, judged by what the listener bound, is
// refused unless -http-allow-remote is given, and then only with a token.
func TestListenRefusesRemote(t *testing.T) {
	for _, tc := range []struct {
		addr        string
		allowRemote bool
		token       string
		wantRemote  bool
		refused     bool
	}{
		{"127.0.0.1:0", false, "", false, false},
		{"localhost:0", false, "", false, false},
		{"127.0.0.1:0", false, token, false, false},
		{":0", false, "", true, true},
		{"0.0.0.0:0", false, "", true, true},
		{"[::]:0", false, "", true, true},
		{":0", false, token, true, true}, // a token alone does not mean remote
		{"0.0.0.0:0", true, "", true, true},
		{"0.0.0.0:0", true, token, true, false},
	} {
		name := tc.addr
		if tc.allowRemote {
			name += " allow-remote"
		}
		if tc.token != "" {
			name += " token"
		}
		t.Run(name, func(t *testing.T) {
			c := &Config{Addr: tc.addr, AllowRemote: tc.allowRemote, Token: tc.token}
			ep, err := c.Listen()
			if tc.refused {
				if err == nil {
					ep.Listener.Close()
					t.Fatalf("served on %s", ep.Listener.Addr())
				}
				if (!errors.Is(err, ErrRemote) || !errors.Is(err, ErrConfig)) && tc.addr != "[::]:0" { // [::] fails to listen where IPv6 is off, which refuses too
					t.Fatalf("refused with %v, want ErrRemote", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ep.Listener.Close()
			if ep.Remote != tc.wantRemote || ep.Token != tc.token {
				t.Fatalf("remote %v token %q", ep.Remote, ep.Token)
			}
		})
	}
}

// The token comes from a file (which wins) or the environment, trimmed,
// at least MinTokenLen characters of the bearer-token alphabet.
func TestToken(t *testing.T) {
	dir := t.TempDir()
	file := func(content string) string {
		p := filepath.Join(dir, strings.NewReplacer("/", "_", "\n", "_").Replace(content)+".token")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name      string
		c         Config
		want, err string
	}{
		{"none", Config{}, "", ""},
		{"environment", Config{Token: token}, token, ""},
		{"file with a newline", Config{TokenFile: file(token + "\n")}, token, ""},
		{"file wins", Config{Token: "environment-token-xyz", TokenFile: file(token)}, token, ""},
		{"empty file", Config{TokenFile: file("\n")}, "", "is empty"},
		{"missing file", Config{TokenFile: filepath.Join(dir, "nope")}, "", "reading the HTTP token"},
		{"short", Config{Token: "short"}, "", "at least 16"},
		{"space inside", Config{Token: "0123456789 abcdef"}, "", "character outside"},
		{"control character", Config{Token: "0123456789abcdef\x00"}, "", "character outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.token()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrConfig) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "0123456789") {
					t.Fatalf("the error shows the token: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("token %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// With a token every request needs it; a remote endpoint accepts any Host
// (the token guards it) but keeps the loopback Origin check.
func TestEndpointHandler(t *testing.T) {
	ep := &Endpoint{Token: token, Remote: true}
	var o mcphttp.HandlerOptions
	ep.Options(&o)
	if len(o.AllowedHosts) != 1 || o.AllowedHosts[0] != "*" || o.AllowedOrigins != nil {
		t.Fatalf("remote options: hosts %v origins %v", o.AllowedHosts, o.AllowedOrigins)
	}
	var local mcphttp.HandlerOptions
	(&Endpoint{}).Options(&local)
	if local.AllowedHosts != nil {
		t.Fatalf("loopback endpoint widened AllowedHosts to %v", local.AllowedHosts)
	}
	h := ep.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for auth, want := range map[string]int{"": 401, "Bearer wrong-token-0123456789": 401, "Bearer " + token: 418} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Authorization %q: %d, want %d", auth, rec.Code, want)
		}
	}
	if s := Server(h); s.WriteTimeout != 0 || s.ReadHeaderTimeout == 0 || s.ReadTimeout == 0 || s.IdleTimeout == 0 {
		t.Fatalf("server timeouts: %+v", s)
	}
}
