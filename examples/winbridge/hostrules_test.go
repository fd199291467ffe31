package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/hostrules"
)

// The bridge's tools as listed by default pass the documented rules of
// every major host. Gemini's API taken raw (the parameters field, which
// Gemini CLI feeds only after removing $schema and additionalProperties)
// refuses nothing else than those two keywords, which the bridge keeps:
// OpenAI's strict mode needs additionalProperties, and arguments are
// validated against the full schema server-side either way.
func TestDefaultToolsPassEveryHost(t *testing.T) {
	listed, err := bridgeClient(t, []string{"-backend", "local", "-allow-exe", "printf"}, nil).ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tools := hostrules.FromMCP(listed)
	if len(tools) != len(defaultNames) {
		t.Fatalf("%d tools listed, want %d", len(tools), len(defaultNames))
	}
	for _, h := range hostrules.Hosts() {
		if bad := h.Check("winbridge", tools); len(bad) > 0 {
			t.Errorf("%s:\n%s", h.Name, strings.Join(bad, "\n"))
		}
	}
	kept := regexp.MustCompile(`unknown field "(\$schema|additionalProperties)"$`)
	for _, p := range hostrules.GeminiAPI.Check("winbridge", tools) {
		if !kept.MatchString(p) {
			t.Errorf("Gemini API: %s", p)
		}
	}
}

// The dotted spelling of earlier releases is what Claude Desktop and
// OpenAI refuse: the reason it is no longer the default.
func TestDottedNamesFailStrictHosts(t *testing.T) {
	listed, err := bridgeClient(t, []string{"-backend", "local", "-dotted-names"}, nil).ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tools := hostrules.FromMCP(listed)
	for _, h := range []hostrules.Host{hostrules.ClaudeDesktop, hostrules.OpenAI} {
		if bad := h.Check("winbridge", tools); len(bad) != len(tools) {
			t.Errorf("%s: %d problems for %d dotted names: %q", h.Name, len(bad), len(tools), bad)
		}
	}
}
