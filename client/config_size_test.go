package client_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// A configuration's errors are bounded, whatever its problems: the first
// ones are reported, then that there are more. Before, every problem was
// reported, and an args array of a million numbers (2 MiB) gave an error
// message of 60 MiB: 4 MiB of config took 2 GiB of allocations and a
// message of 125 MiB for the host's log.
func TestParseConfigErrorsAreBounded(t *testing.T) {
	for name, doc := range map[string]string{
		"args":    `{"mcpServers":{"a":{"command":"x","args":[` + strings.Repeat("1,", 200000) + `1]}}}`,
		"env":     `{"mcpServers":{"a":{"command":"x","env":{` + envs(50000) + `}}}}`,
		"servers": `{"mcpServers":{` + strings.Repeat(`"a":1,`, 100000) + `"b":1}}`,
		"entries": `{"mcpServers":{` + entries(20000) + `}}`,
	} {
		_, err := client.ParseConfig([]byte(doc))
		var ce *client.ConfigError
		if err == nil || !errors.As(err, &ce) {
			t.Errorf("%s: got %v, want a *ConfigError", name, err)
			continue
		}
		if n := len(err.Error()); n > 64<<10 {
			t.Errorf("%s: an error of %d bytes from a document of %d", name, n, len(doc))
		}
		if !strings.Contains(err.Error(), "more") {
			t.Errorf("%s: the error does not say there is more: %.300s", name, err)
		}
	}
}

func envs(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"V` + strconv.Itoa(i) + `=":1`)
	}
	return b.String()
}

func entries(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"s` + strconv.Itoa(i) + `":{"timeoutMs":-1}`)
	}
	return b.String()
}

// A configuration is at most client.MaxConfigSize bytes, and LoadConfig
// reads no more than that of a file: before, it read whatever it was
// given to the end (mcpc --config /dev/zero ran out of memory).
func TestLoadConfigIsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	doc := `{"mcpServers":{"a":{"command":"x","args":["` + strings.Repeat("a", client.MaxConfigSize) + `"]}}}`
	if err := os.WriteFile(big, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		_, err := client.LoadConfig(path)
		var ce *client.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "at most") {
			t.Errorf("%s: got %v, want a *ConfigError saying the bound", path, err)
		}
	}
	if _, err := client.ParseConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("ParseConfig of %d bytes: %v", len(doc), err)
	}
}
