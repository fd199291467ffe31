package client_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// FuzzParseConfig: whatever the document, ParseConfig does not panic, its
// errors are *ConfigError values, and what it accepts is usable as it
// stands: each entry is either a command or an http(s) URL without
// credentials, and every header can be sent without injecting another.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"a":{"command":"x","args":["1"]},"b":{"url":"https://h/mcp","headers":{"X-A":"v"}}}}`,
		`{"servers":{"b":{"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer t"}}}}`,
		`{"mcpServers":{"b":{"url":"http://h/mcp","headers":{"X-A":"v\r\nX-B: w"}}}}`,
		`{"mcpServers":{"b":{"url":"https://u:p@h/mcp"}}}`,
		`{"mcpServers":{"b":{"url":"http://h","command":"x","type":"sse"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := client.ParseConfig(data)
		if err != nil {
			var ce *client.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ConfigError", err)
			}
			return
		}
		for name, sc := range cfg.Servers {
			if (sc.URL == "") == (sc.Command == "") {
				t.Fatalf("%s: URL %q and Command %q: want exactly one", name, sc.URL, sc.Command)
			}
			if sc.URL == "" {
				if len(sc.Headers) > 0 {
					t.Fatalf("%s: headers on a command", name)
				}
				continue
			}
			u, err := url.Parse(sc.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				t.Fatalf("%s: accepted URL %q", name, sc.URL)
			}
			if len(sc.Args) > 0 || len(sc.Env) > 0 || sc.Cwd != "" {
				t.Fatalf("%s: command fields on a url entry", name)
			}
			if len(sc.Headers) > 64 {
				t.Fatalf("%s: %d headers", name, len(sc.Headers))
			}
			seen := map[string]bool{}
			for k, v := range sc.Headers {
				if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }) {
					t.Fatalf("%s: accepted header name %q", name, k)
				}
				if seen[strings.ToLower(k)] {
					t.Fatalf("%s: header %q twice", name, k)
				}
				seen[strings.ToLower(k)] = true
				if len(v) > 8<<10 || strings.ContainsFunc(v, func(r rune) bool { return (r < ' ' && r != '\t') || r == 0x7f }) {
					t.Fatalf("%s: accepted header value of %d bytes with a control character", name, len(v))
				}
			}
		}
	})
}
