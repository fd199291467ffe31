package client_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// One file may mix servers run as commands and Streamable HTTP servers,
// under "mcpServers" or VS Code's "servers".
func TestParseConfigMixesStdioAndURL(t *testing.T) {
	for _, root := range []string{"mcpServers", "servers"} {
		cfg, err := client.ParseConfig([]byte(`{"` + root + `":{
			"fs":{"command":"npx","args":["-y","pkg"]},
			"web":{"type":"http","url":"https://example.com/mcp","headers":{"X-Tenant":"a","Authorization":"Bearer s3cret"},"timeoutMs":2500},
			"web2":{"type":"streamable-http","url":"http://127.0.0.1:8080/mcp","disabled":true},
			"cline":{"type":"streamableHttp","url":"https://example.net/mcp","alwaysAllow":["x"]},
			"plain":{"url":"https://example.org/mcp"}}}`))
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		fs, web, web2, plain := cfg.Servers["fs"], cfg.Servers["web"], cfg.Servers["web2"], cfg.Servers["plain"]
		if fs == nil || fs.Command != "npx" || fs.URL != "" {
			t.Errorf("fs: %+v", fs)
		}
		if web == nil || web.URL != "https://example.com/mcp" || web.Command != "" || web.Headers["X-Tenant"] != "a" ||
			web.Headers["Authorization"] != "Bearer s3cret" || web.Timeout != 2500*time.Millisecond || web.Path() != root+".web" {
			t.Errorf("web: %+v", web)
		}
		if web2 == nil || !web2.Disabled || web2.URL == "" || plain == nil || plain.URL != "https://example.org/mcp" {
			t.Errorf("web2 %+v, plain %+v", web2, plain)
		}
		// Cline spells the type "streamableHttp" (and adds fields of its own).
		if cline := cfg.Servers["cline"]; cline == nil || cline.URL != "https://example.net/mcp" || cline.Command != "" {
			t.Errorf("cline: %+v", cline)
		}
	}
}

// Every malformed url entry is a *ConfigError naming its path, and a
// header value, which may be a credential, is never echoed.
func TestParseConfigURLErrors(t *testing.T) {
	long := strings.Repeat("v", 9<<10)
	var hb strings.Builder
	for i := range 65 {
		if i > 0 {
			hb.WriteString(",")
		}
		hb.WriteString(`"H` + strings.Repeat("x", i) + `":"v"`)
	}
	for _, tc := range []struct{ doc, want string }{
		{`{"mcpServers":{"b":{"url":"ftp://x"}}}`, `mcpServers.b.url: want an http or https URL, got "ftp://x"`},
		{`{"mcpServers":{"b":{"url":"ftp://x/mcp?k=v"}}}`, `mcpServers.b.url: want an http or https URL, got "ftp://x/mcp?..."`},
		{`{"mcpServers":{"b":{"url":"https://"}}}`, `mcpServers.b.url: want an http or https URL`},
		{`{"mcpServers":{"b":{"url":7}}}`, `mcpServers.b.url: want string, got number`},
		{`{"mcpServers":{"b":{"url":"https://me:pw@h/mcp"}}}`, `mcpServers.b.url: has a user:password part`},
		{`{"mcpServers":{"c":{"url":"http://h/mcp","type":"sse"}}}`, `mcpServers.c.type: want "http", "streamable-http" or "streamableHttp" with "url" (SSE servers are not supported), got "sse"`},
		{`{"mcpServers":{"c":{"url":"http://h/mcp","type":"stdio"}}}`, `mcpServers.c.type: want "http"`},
		{`{"mcpServers":{"c":{"command":"x","type":"sse"}}}`, `mcpServers.c.type: "sse" servers are not supported`},
		{`{"mcpServers":{"c":{"command":"x","type":"streamableHttp"}}}`, `mcpServers.c.url: missing ("type" is "streamableHttp")`},
		{`{"mcpServers":{"c":{"url":"http://h/mcp","type":"streamablehttp"}}}`, `mcpServers.c.type: want "http"`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"k":1}}}}`, `mcpServers.d.headers.k: want string, got number`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":[]}}}`, `mcpServers.d.headers: want object, got array`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"Bad Name":"v"}}}}`, `mcpServers.d.headers: invalid header name "Bad…"`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"Authorization: Bearer secret":""}}}}`, `mcpServers.d.headers: invalid header name "Authorization…"`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"X-A":"v","x-a":"w"}}}}`, `the same header as "X-A"`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"X-A":"secret\r\nX-Evil: 1"}}}}`, `mcpServers.d.headers.X-A: value has a control character`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"X-A":"secret\u0000"}}}}`, `mcpServers.d.headers.X-A: value has a control character`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{"X-A":"` + long + `"}}}}`, `mcpServers.d.headers.X-A: value of 9216 bytes; at most 8192`},
		{`{"mcpServers":{"d":{"url":"http://h/mcp","headers":{` + hb.String() + `}}}}`, `mcpServers.d.headers: 65 headers; at most 64`},
		{`{"mcpServers":{"e":{"url":"http://h","command":"x"}}}`, `mcpServers.e: has both "command" and "url"`},
		{`{"mcpServers":{"e":{"url":"http://h","args":["x"]}}}`, `mcpServers.e.args: only for a server run as a "command"`},
		{`{"mcpServers":{"e":{"url":"http://h","timeoutMs":0}}}`, `mcpServers.e.timeoutMs: want a positive whole number`},
		{`{"mcpServers":{"e":{"url":"http://h","disabled":"no"}}}`, `mcpServers.e.disabled: want boolean`},
	} {
		_, err := client.ParseConfig([]byte(tc.doc))
		var ce *client.ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%.120s) = %v, want a *ConfigError containing %q", tc.doc, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the error shows a header value: %v", err)
		}
	}
}

// A "url" that fails a check is not repeated in the error: it may carry a
// password or a token. Before, only a URL that parsed and had the right
// scheme and a host had its user:password part kept out; a typo in the
// scheme, a space in the host or a bad escape printed the password.
func TestParseConfigURLErrorsHideCredentials(t *testing.T) {
	for _, u := range []string{
		"htps://me:hunter2@h/mcp",             // wrong scheme
		"https://me:hunter2@exa mple.com/mcp", // does not parse
		"https://me:hunter2%zz@h/mcp",         // bad escape
		"https://hunter2@:x",                  // bad port
		"https://me:hunter2@/mcp",             // no host
		"//me:hunter2@h/mcp",                  // no scheme
		"ftp://h/mcp?token=hunter2",           // a token in the query
		"https:/hunter2",                      // no host, the token in the path
		"ftp:hunter2",                         // opaque
		"hunter2",                             // a path alone
	} {
		doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"r": map[string]any{"url": u}}})
		_, err := client.ParseConfig(doc)
		if err == nil || !strings.Contains(err.Error(), "mcpServers.r.url") {
			t.Errorf("%s: got %v, want an error naming mcpServers.r.url", u, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows the credential: %v", u, err)
		}
	}
}
