package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
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

// ParseConfig parses an "mcpServers" document: entries with "command" as
// client.ParseConfig does, entries with "url" as Streamable HTTP servers
// ("type", when present, must be "http" or "streamable-http"; "headers"
// is an object of strings; "timeoutMs" and "disabled" as for commands).
// Errors are *client.ConfigError values naming the JSON path, all
// reported, joined.
func ParseConfig(data []byte) (*client.Config, map[string]*HTTPServer, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		// Let client.ParseConfig word syntax errors with line and column.
		_, cerr := client.ParseConfig(data)
		if cerr == nil {
			cerr = &client.ConfigError{Problem: err.Error()}
		}
		return nil, nil, cerr
	}
	root := "mcpServers"
	if _, ok := doc[root]; !ok {
		if _, vscode := doc["servers"]; vscode {
			root = "servers" // VS Code's mcp.json, where client.ParseConfig reads it
		}
	}
	servers, _ := doc[root].(map[string]any)
	hs := map[string]*HTTPServer{}
	var errs []error
	commands := map[string]any{}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		entry, ok := servers[name].(map[string]any)
		if _, isURL := entry["url"]; !ok || !isURL {
			commands[name] = servers[name]
			continue
		}
		h, perr := parseHTTPServer(jsonMember(root, name), entry)
		errs = append(errs, perr...)
		if h != nil {
			hs[name] = h
		}
	}
	src := data // no "mcpServers" object: client.ParseConfig words the problem
	if servers != nil {
		rest := map[string]any{}
		for k, v := range doc {
			rest[k] = v
		}
		rest[root] = commands
		src, _ = json.Marshal(rest)
	}
	cfg, err := client.ParseConfig(src)
	if err != nil {
		errs = append([]error{err}, errs...)
	}
	if len(errs) > 0 {
		return nil, nil, joinErrors(errs)
	}
	return cfg, hs, nil
}

func parseHTTPServer(path string, m map[string]any) (*HTTPServer, []error) {
	var errs []error
	fail := func(p, format string, args ...any) {
		errs = append(errs, &client.ConfigError{Path: p, Problem: fmt.Sprintf(format, args...)})
	}
	h := &HTTPServer{Header: http.Header{}}
	if s, ok := m["url"].(string); !ok {
		fail(jsonMember(path, "url"), "want string, got %s", typeOf(m["url"]))
	} else if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fail(jsonMember(path, "url"), "want an http or https URL, got %q", s)
	} else {
		h.URL = s
	}
	if _, ok := m["command"]; ok {
		fail(path, "has both \"command\" and \"url\"")
	}
	if t, ok := m["type"]; ok {
		if s, _ := t.(string); s != "http" && s != "streamable-http" {
			fail(jsonMember(path, "type"), "want \"http\" or \"streamable-http\" with \"url\" (SSE servers are not supported), got %v", t)
		}
	}
	if hv, ok := m["headers"]; ok {
		hm, ok := hv.(map[string]any)
		if !ok {
			fail(jsonMember(path, "headers"), "want object, got %s", typeOf(hv))
		}
		for k, v := range hm {
			s, ok := v.(string)
			if !ok {
				fail(jsonMember(jsonMember(path, "headers"), k), "want string, got %s", typeOf(v))
				continue
			}
			h.Header.Set(k, s)
		}
	}
	if d, ok := m["disabled"]; ok {
		b, ok := d.(bool)
		if !ok {
			fail(jsonMember(path, "disabled"), "want boolean, got %s", typeOf(d))
		}
		h.Disabled = b
	}
	if t, ok := m["timeoutMs"]; ok {
		n, ok := t.(json.Number)
		ms, err := strconv.ParseInt(n.String(), 10, 64)
		if !ok || err != nil || ms < 0 || ms > 24*3600*1000 {
			fail(jsonMember(path, "timeoutMs"), "want a non-negative integer of milliseconds, got %v", t)
		} else {
			h.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return h, nil
}

func jsonMember(path, name string) string { return member(path, name) }
