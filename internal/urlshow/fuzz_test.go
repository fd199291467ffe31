package urlshow_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// FuzzString checks the policy against any input: a secret put in the
// password, a query value or a credential-looking path segment never
// shows, raw or escaped, while the host does; and for any raw URL, what
// shows is scheme, host and segments of its path that are Plain.
func FuzzString(f *testing.F) {
	f.Add("https://u:p@mcp.example/mcp/KEY/sse?api_key=K#f", "sk-ak-Zq81xYt0PqLm3NvR")
	f.Add("http://[::1]:9/%41/b?", "0f3c6a8e-2b1d-4c55")
	f.Add("mailto:x@y", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("//host/a//b/", "p@ss/w?rd#x")
	f.Fuzz(func(t *testing.T, raw, secret string) {
		checkRaw(t, raw)
		const host = "mcp.example:8443"
		for _, in := range []string{
			"https://" + url.UserPassword("user", secret).String() + "@" + host + "/mcp",
			"https://" + host + "/mcp?api_key=" + url.QueryEscape(secret) + "&x=1",
			"https://" + host + "/mcp/" + url.PathEscape(secret) + "/sse",
		} {
			out := urlshow.String(in)
			if !strings.Contains(out, host) {
				t.Fatalf("String(%q) = %q, without the host", in, out)
			}
			if strings.Contains(in, "/mcp/") && urlshow.Plain(url.PathEscape(secret)) {
				continue // a word of a route, not a credential
			}
			for _, s := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
				// A secret that is also part of what always shows (the
				// host, "mcp", "...") proves nothing either way.
				if len(s) < 3 || strings.Contains("https://"+host+"/mcp/.../sse?...", s) {
					continue
				}
				if strings.Contains(out, s) {
					t.Fatalf("String(%q) = %q, which shows %q", in, out, s)
				}
			}
		}
	})
}

func checkRaw(t *testing.T, raw string) {
	u, err := url.Parse(raw)
	out := urlshow.String(raw)
	if err != nil {
		if out != urlshow.Invalid {
			t.Fatalf("String(%q) = %q, want %q", raw, out, urlshow.Invalid)
		}
		return
	}
	rest, ok := strings.CutPrefix(out, u.Scheme)
	if u.Scheme != "" {
		rest, ok = strings.CutPrefix(rest, ":")
	}
	if !ok {
		t.Fatalf("String(%q) = %q, not from its scheme %q", raw, out, u.Scheme)
	}
	rest, query := strings.CutSuffix(rest, "?"+urlshow.Hidden)
	if query != (u.RawQuery != "" || u.ForceQuery) {
		t.Fatalf("String(%q) = %q: a query shows as ?%s, and only a query", raw, out, urlshow.Hidden)
	}
	if u.Opaque != "" {
		if rest != urlshow.Hidden {
			t.Fatalf("String(%q) = %q shows its opaque part", raw, out)
		}
		return
	}
	if u.Host != "" {
		rest, ok = strings.CutPrefix(rest, "//"+u.Host)
		if !ok {
			t.Fatalf("String(%q) = %q, not from its host %q", raw, out, u.Host)
		}
	}
	if rest == "" {
		return
	}
	in := strings.Split(u.EscapedPath(), "/")
	shown := strings.Split(rest, "/")
	if len(in) != len(shown) {
		t.Fatalf("String(%q) = %q: %d segments for %d", raw, out, len(shown), len(in))
	}
	for i, s := range shown {
		if s != in[i] && s != urlshow.Hidden || s == in[i] && !urlshow.Plain(s) {
			t.Fatalf("String(%q) = %q: segment %q for %q", raw, out, s, in[i])
		}
	}
}
