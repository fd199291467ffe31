package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// Other hosts' variables (VS Code's and Cursor's ${input:ID}, ${env:NAME},
// ${workspaceFolder}; Claude Code's ${NAME} in env, url and headers) are
// not expanded by this package, and a value that has one is refused,
// naming the variable, not the value. Before, the placeholder was passed
// as written: GitHub's own VS Code config sent the header
// "Authorization: Bearer ${input:github_mcp_pat}", a server got the
// token "${API_KEY}", and the user saw only the server's refusal.
func TestParseConfigRefusesOtherHostsVariables(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"servers":{"gh":{"type":"http","url":"https://api.githubcopilot.com/mcp/","headers":{"Authorization":"Bearer ${input:github_mcp_pat}"}}}}`,
			`servers.gh.headers.Authorization: ${input:github_mcp_pat} is a variable of another host`},
		{`{"mcpServers":{"a":{"command":"x","env":{"API_KEY":"${API_KEY}"}}}}`,
			`mcpServers.a.env.API_KEY: ${API_KEY} is a variable`},
		{`{"mcpServers":{"a":{"command":"x","env":{"API_KEY":"${env:API_KEY}"}}}}`,
			`mcpServers.a.env.API_KEY: ${env:API_KEY} is a variable`},
		{`{"mcpServers":{"a":{"command":"x","args":["--root","${workspaceFolder}"]}}}`,
			`mcpServers.a.args[1]: ${workspaceFolder} is a variable`},
		{`{"mcpServers":{"a":{"command":"x","args":["--key=${input:key}"]}}}`,
			`mcpServers.a.args[0]: ${input:key} is a variable`},
		{`{"mcpServers":{"a":{"command":"${userHome}/bin/server"}}}`,
			`mcpServers.a.command: ${userHome} is a variable`},
		{`{"mcpServers":{"a":{"command":"x","cwd":"${workspaceFolder}"}}}`,
			`mcpServers.a.cwd: ${workspaceFolder} is a variable`},
		{`{"mcpServers":{"r":{"url":"https://h/mcp?key=${API_KEY:-none}"}}}`,
			`mcpServers.r.url: ${API_KEY:…} is a variable`},
		{`{"mcpServers":{"r":{"url":"https://h/mcp","headers":{"X-Key":"${none-of-this}"}}}}`,
			`mcpServers.r.headers.X-Key: ${…} is a variable`},
	} {
		_, err := client.ParseConfig([]byte(tc.doc))
		var ce *client.ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%s) = %v, want a *ConfigError containing %q", tc.doc, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Bearer") || strings.Contains(err.Error(), "none")) {
			t.Errorf("the error shows the value: %v", err)
		}
	}
	// A shell's own variables, in the arguments of a shell, are its
	// business; so is a $ without braces anywhere.
	cfg, err := client.ParseConfig([]byte(`{"mcpServers":{"a":{"command":"sh","args":["-c","exec server --home ${HOME} --tmp ${TMPDIR:-/tmp}"],"env":{"PRICE":"$5","RE":"^a{2}$"}}}}`))
	if err != nil || cfg.Servers["a"] == nil {
		t.Errorf("a shell's variables in args: %v", err)
	}
}

// An env name written as KEY=VALUE (a line of a .env file pasted as a
// name) is refused without the value. Before, the error quoted the whole
// name, the token with it.
func TestParseConfigEnvNameErrorHidesTheValue(t *testing.T) {
	_, err := client.ParseConfig([]byte(`{"mcpServers":{"a":{"command":"x","env":{"GITHUB_TOKEN=ghp_hunter2":"","B\u0000hunter2":""}}}}`))
	if err == nil || !strings.Contains(err.Error(), `mcpServers.a.env: invalid variable name "GITHUB_TOKEN…"`) ||
		!strings.Contains(err.Error(), `invalid variable name "B…"`) {
		t.Errorf("got %v, want the names up to the = or NUL", err)
	}
	if err != nil && strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the value: %v", err)
	}
}
