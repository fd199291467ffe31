package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/winbridge/winbridge/client"
)

// HTTPServer is an upstream reached over Streamable HTTP: an
// "mcpServers" entry with "url" instead of "command".
type HTTPServer struct {
	// URL is the MCP endpoint, http or https.
	URL string
	// Header is sent with every request (Authorization, say). Its values
	// are never logged.
	Header http.Header
	// Timeout bounds each request to the server ("timeoutMs"); zero
	// leaves the client's default (60 s).
	Timeout time.Duration
	// Disabled servers are not connected.
	Disabled bool
}

// LoadConfig reads an "mcpServers" file for the facade (see ParseConfig).
func LoadConfig(path string) (*client.Config, map[string]*HTTPServer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	cfg, hs, err := ParseConfig(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, hs, nil
}

// ParseConfig parses an "mcpServers" document with client.ParseConfig,
// which reads both kinds of entry, and splits it: entries with "command"
// stay in the client.Config, entries with "url" become HTTPServers.
// Errors are *client.ConfigError values naming the JSON path, all
// reported, joined. A server name may not contain "/": policy keys are
// "server/tool", cut at the first "/" (checkServerName).
func ParseConfig(data []byte) (*client.Config, map[string]*HTTPServer, error) {
	cfg, err := client.ParseConfig(data)
	if err != nil {
		return nil, nil, err
	}
	var bad []error
	for _, sc := range cfg.Servers {
		if strings.Contains(sc.Name, "/") {
			bad = append(bad, &client.ConfigError{Path: sc.Path(), Problem: `a server name may not contain "/" (policy keys are "server/tool")`})
		}
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return nil, nil, errors.Join(bad...)
	}
	hs := map[string]*HTTPServer{}
	for name, sc := range cfg.Servers {
		if sc.URL == "" {
			continue
		}
		h := &HTTPServer{URL: sc.URL, Header: http.Header{}, Timeout: sc.Timeout, Disabled: sc.Disabled}
		for k, v := range sc.Headers {
			h.Header.Set(k, v)
		}
		hs[name] = h
		delete(cfg.Servers, name)
	}
	return cfg, hs, nil
}

// checkServerName refuses a server name containing "/": policy keys
// ("server/tool") are cut at the first "/", so rules could not name such
// a server, and "a/b" + "c" would read as server "a", tool "b/c".
func checkServerName(name string) error {
	if strings.Contains(name, "/") {
		return fmt.Errorf(`gateway: server name %q may not contain "/" (policy keys are "server/tool")`, name)
	}
	return nil
}
