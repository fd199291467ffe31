package gateway

import (
	"fmt"
	"net/http"
	"os"
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
// reported, joined.
func ParseConfig(data []byte) (*client.Config, map[string]*HTTPServer, error) {
	cfg, err := client.ParseConfig(data)
	if err != nil {
		return nil, nil, err
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
