package client_test

import (
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// A VS Code .vscode/mcp.json keeps its servers under "servers", with
// "inputs" beside them; errors then name that path.
func TestParseConfigVSCodeServers(t *testing.T) {
	cfg, err := client.ParseConfig([]byte(`{"inputs":[{"type":"promptString","id":"k"}],
		"servers":{"fs":{"type":"stdio","command":"npx","args":["-y","pkg"],"timeoutMs":1500}}}`))
	if err != nil {
		t.Fatal(err)
	}
	fs := cfg.Servers["fs"]
	if fs == nil || fs.Command != "npx" || fs.Path() != "servers.fs" {
		t.Fatalf("parsed %+v", fs)
	}
	o := fs.ClientOptions(&client.Options{LogLevel: "info"})
	if o.Timeout != 1500*time.Millisecond || o.LogLevel != "info" {
		t.Errorf("client options %+v", o)
	}
	_, err = client.ParseConfig([]byte(`{"servers":{"fs":{"command":3}}}`))
	if err == nil || !strings.Contains(err.Error(), "servers.fs.command: want string") {
		t.Errorf("error %v: want the path under servers", err)
	}
	// mcpServers wins when a file has both.
	cfg, err = client.ParseConfig([]byte(`{"mcpServers":{"a":{"command":"x"}},"servers":{"b":{"command":3}}}`))
	if err != nil || cfg.Servers["a"] == nil || cfg.Servers["a"].Path() != "mcpServers.a" {
		t.Errorf("%v %+v", err, cfg)
	}
	if _, err := client.ParseConfig([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "mcpServers: missing") {
		t.Errorf("empty document: %v", err)
	}
}

// VS Code's envFile is refused, naming the field and what to do: ignored
// as another host's field, the server ran without the variables it names
// (typically its API key) and failed with its own message.
func TestParseConfigEnvFileRefused(t *testing.T) {
	for _, doc := range []string{
		`{"servers":{"gh":{"type":"stdio","command":"npx","args":["-y","pkg"],"envFile":"${workspaceFolder}/.env"}}}`,
		`{"mcpServers":{"gh":{"command":"npx","envFile":"/srv/gh.env","env":{"A":"1"}}}}`,
	} {
		_, err := client.ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), ".gh.envFile: environment files are not read; put the variables in \"env\"") {
			t.Errorf("%s: error %v, want envFile refused", doc, err)
		}
	}
}
