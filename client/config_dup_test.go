package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// A member written twice is refused, naming both the path and the name:
// encoding/json (and JSON.parse in the Node hosts) keep the last one, so a
// reviewer reading the first "command" of an entry, or the first entry of a
// name, approved something else than what runs. Before, the last one won
// silently.
func TestParseConfigRefusesDuplicateMembers(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem"],"command":"sh"}}}`,
			`config: mcpServers.fs: "command" appears twice`},
		{`{"mcpServers":{"fs":{"command":"a"},"gh":{"command":"b"},"fs":{"command":"c"}}}`,
			`config: mcpServers: "fs" appears twice`},
		{`{"mcpServers":{"fs":{"command":"a","env":{"NODE_OPTIONS":"","NODE_OPTIONS":"--require /tmp/x.js"}}}}`,
			`config: mcpServers.fs.env: "NODE_OPTIONS" appears twice`},
		{`{"mcpServers":{"r":{"url":"https://h/mcp","headers":{"Authorization":"Bearer a","Authorization":"Bearer b"}}}}`,
			`config: mcpServers.r.headers: "Authorization" appears twice`},
		{`{"mcpServers":{"a":{"command":"a"}},"mcpServers":{"b":{"command":"b"}}}`,
			`config: "mcpServers" appears twice`},
		{`{"servers":{"my server":{"command":"a","args":[{"x":1,"x":2}]},"my server":{"command":"b"}}}`,
			`config: servers: "my server" appears twice`},
	} {
		_, err := client.ParseConfig([]byte(tc.doc))
		var ce *client.ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%s) = %v, want a *ConfigError containing %q", tc.doc, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "Bearer") {
			t.Errorf("the error shows a header value: %v", err)
		}
	}
	// Duplicates outside the servers, in another host's settings, are that
	// host's business.
	cfg, err := client.ParseConfig([]byte(`{"globalShortcut":"a","globalShortcut":"b","mcpServers":{"fs":{"command":"x"}}}`))
	if err != nil || cfg.Servers["fs"] == nil {
		t.Errorf("a duplicate outside mcpServers: %v", err)
	}
}

// A field that differs from a known one only in case is refused, naming
// the field meant: JSON names are case-sensitive, here and in every host,
// so "Env" or "ARGS" was ignored like any other host's field and the
// server ran without its environment or arguments, or a second "Command"
// sat beside the "command" that runs.
func TestParseConfigRefusesFieldsDifferingOnlyInCase(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"mcpServers":{"fs":{"command":"npx","Args":["-y","pkg"]}}}`, `config: mcpServers.fs.Args: not a field; the field is "args" (names are case-sensitive)`},
		{`{"mcpServers":{"fs":{"command":"x","Env":{"TOKEN":"t"}}}}`, `mcpServers.fs.Env: not a field; the field is "env"`},
		{`{"mcpServers":{"fs":{"command":"x","Command":"sh"}}}`, `mcpServers.fs.Command: not a field; the field is "command"`},
		{`{"mcpServers":{"r":{"URL":"https://h/mcp"}}}`, `mcpServers.r.URL: not a field; the field is "url"`},
		{`{"mcpServers":{"r":{"url":"https://h/mcp","Headers":{"A":"b"}}}}`, `mcpServers.r.Headers: not a field; the field is "headers"`},
		{`{"mcpServers":{"fs":{"command":"x","timeoutMS":5}}}`, `mcpServers.fs.timeoutMS: not a field; the field is "timeoutMs"`},
	} {
		_, err := client.ParseConfig([]byte(tc.doc))
		var ce *client.ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%s) = %v, want a *ConfigError containing %q", tc.doc, err, tc.want)
		}
	}
	// Other hosts' fields pass.
	if _, err := client.ParseConfig([]byte(`{"mcpServers":{"fs":{"command":"x","autoApprove":[],"alwaysAllow":[],"transportType":"stdio"}}}`)); err != nil {
		t.Errorf("other hosts' fields: %v", err)
	}
}
