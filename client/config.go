package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// Config is the "mcpServers" configuration that Claude Desktop, Cursor
// and most MCP hosts read:
//
//	{
//	  "mcpServers": {
//	    "fs": {
//	      "command": "npx",
//	      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
//	      "env": {"DEBUG": "1"},
//	      "cwd": "/tmp",
//	      "disabled": false,
//	      "timeoutMs": 30000,
//	      "autoRestart": true,
//	      "lifecycle": "keep-alive"
//	    },
//	    "remote": {
//	      "type": "http",
//	      "url": "https://example.com/mcp",
//	      "headers": {"X-Tenant": "a"}
//	    }
//	  }
//	}
//
// An entry has either "command" (a stdio server, run as a child process)
// or "url" (a Streamable HTTP server; "type", when present, is "http" or
// "streamable-http", and "headers" is an object of strings sent with every
// request). Fields this package does not know are ignored, so one file
// can serve several hosts. A VS Code file (.vscode/mcp.json), whose
// servers are under "servers" instead, is read the same way when it has
// no "mcpServers".
//
// This package runs stdio servers only: it does not link net/http, so
// that a stdio client does not pay for it. A "url" entry is parsed here
// and connected by mcp/mcphttp (mcphttp.NewStream, then Connect); the
// Manager refuses it with ErrRemoteServer.
type Config struct {
	// Servers are the configured servers by name.
	Servers map[string]*ServerConfig
}

// Lifecycle says when a managed server runs.
type Lifecycle string

// The lifecycles of a managed server.
const (
	// KeepAlive servers start with Manager.Start and run until Close.
	KeepAlive Lifecycle = "keep-alive"
	// Ephemeral servers start on first use and stop after
	// ManagerOptions.IdleTimeout without calls.
	Ephemeral Lifecycle = "ephemeral"
)

// ServerConfig is one entry of "mcpServers".
type ServerConfig struct {
	// Name is the entry's key.
	Name string
	// URL is the endpoint of a Streamable HTTP server (http or https, no
	// user:password part); empty for a stdio server. Exactly one of URL
	// and Command is set.
	URL string
	// Headers are sent with every request to URL (names as written, no
	// two equal but for case). Their values may be credentials: never log
	// them.
	Headers map[string]string
	// Command, Args, Env and Cwd say what to run, with which extra
	// environment, where (stdio servers only).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// Disabled servers are not started.
	Disabled bool
	// Timeout bounds each request to the server ("timeoutMs"); zero
	// leaves the client's default.
	Timeout time.Duration
	// AutoRestart restarts the server when it crashes
	// (ManagerOptions.Process.Restart, or the default RestartPolicy).
	AutoRestart bool
	// Lifecycle is KeepAlive (the default) or Ephemeral.
	Lifecycle Lifecycle

	path string // the entry's JSON path, for messages: mcpServers.NAME
}

// Path is the entry's JSON path in its file, such as mcpServers.fs or
// servers["my server"], for messages that point the user at it.
func (sc *ServerConfig) Path() string {
	if sc.path == "" {
		return member("mcpServers", sc.Name)
	}
	return sc.path
}

// ClientOptions returns base (nil: the zero Options) with the entry's
// timeoutMs applied; a call that runs out of it names the setting.
func (sc *ServerConfig) ClientOptions(base *Options) *Options {
	var o Options
	if base != nil {
		o = *base
	}
	if sc.Timeout > 0 {
		o.Timeout = sc.Timeout
		o.timeoutSetting = member(sc.Path(), "timeoutMs")
	}
	return &o
}

// ConfigError reports a problem in a configuration, naming the JSON path
// of the value at fault, as in
// `mcpServers.fs.args[2]: want string, got number`.
type ConfigError struct {
	Path    string // e.g. mcpServers.fs.args[2]; empty for the document itself
	Problem string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return "config: " + e.Problem
	}
	return "config: " + e.Path + ": " + e.Problem
}

// LoadConfig reads and parses a configuration file.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses an "mcpServers" configuration. Every problem is a
// *ConfigError; all of them are reported, joined.
func ParseConfig(data []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, syntaxError(data, err)
	}
	if dec.More() {
		return nil, &ConfigError{Problem: "more than one JSON value"}
	}
	p := &configParser{}
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	top, ok := p.object("", doc)
	if !ok {
		return nil, errors.Join(p.errs...)
	}
	root := "mcpServers"
	rawServers, present := top[root]
	if !present {
		// VS Code's .vscode/mcp.json.
		root = "servers"
		rawServers, present = top[root]
	}
	if !present {
		return nil, &ConfigError{Path: "mcpServers", Problem: `missing (nor is there a VS Code "servers" object)`}
	}
	servers, ok := p.object(root, rawServers)
	if !ok {
		return nil, errors.Join(p.errs...)
	}
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if sc := p.server(root, name, servers[name]); sc != nil {
			cfg.Servers[name] = sc
		}
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return cfg, nil
}

// syntaxError locates a JSON syntax error by line and column.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		// Offset counts the offending byte; the column names it.
		for _, c := range data[:max(0, min(int(se.Offset)-1, len(data)))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return &ConfigError{Problem: fmt.Sprintf("line %d, column %d: %v", line, col, se)}
	}
	return &ConfigError{Problem: err.Error()}
}

type configParser struct{ errs []error }

func (p *configParser) fail(path, format string, args ...any) {
	p.errs = append(p.errs, &ConfigError{Path: path, Problem: fmt.Sprintf(format, args...)})
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (p *configParser) object(path string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "want object, got %s", jsonType(v))
	}
	return m, ok
}

func (p *configParser) str(path string, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.fail(path, "want string, got %s", jsonType(v))
	}
	return s, ok
}

func (p *configParser) boolean(path string, v any) bool {
	b, ok := v.(bool)
	if !ok {
		p.fail(path, "want boolean, got %s", jsonType(v))
	}
	return b
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// member is the path of a member: a.b, or a["b c"] when b is not a plain
// name.
func member(path, name string) string {
	if identifier.MatchString(name) {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	q, _ := json.Marshal(name)
	return path + "[" + string(q) + "]"
}

func (p *configParser) server(root, name string, v any) *ServerConfig {
	path := member(root, name)
	m, ok := p.object(path, v)
	if !ok {
		return nil
	}
	sc := &ServerConfig{Name: name, Lifecycle: KeepAlive, path: path}
	if _, remote := m["url"]; remote {
		p.remote(path, m, sc)
	} else {
		p.stdio(path, m, sc)
	}
	if raw, ok := m["disabled"]; ok {
		sc.Disabled = p.boolean(member(path, "disabled"), raw)
	}
	if raw, ok := m["autoRestart"]; ok {
		sc.AutoRestart = p.boolean(member(path, "autoRestart"), raw)
	}
	if raw, ok := m["timeoutMs"]; ok {
		tp := member(path, "timeoutMs")
		n, isNum := raw.(json.Number)
		if !isNum {
			p.fail(tp, "want number, got %s", jsonType(raw))
		} else if f, err := n.Float64(); err != nil || f <= 0 || f != math.Trunc(f) || f > float64(math.MaxInt64/int64(time.Millisecond)) {
			p.fail(tp, "want a positive whole number of milliseconds, got %s", n)
		} else {
			sc.Timeout = time.Duration(f) * time.Millisecond
		}
	}
	if raw, ok := m["lifecycle"]; ok {
		if s, ok := p.str(member(path, "lifecycle"), raw); ok {
			switch Lifecycle(s) {
			case KeepAlive, Ephemeral:
				sc.Lifecycle = Lifecycle(s)
			default:
				p.fail(member(path, "lifecycle"), "want \"keep-alive\" or \"ephemeral\", got %q", s)
			}
		}
	}
	return sc
}

// stdio parses the fields of a server run as a command.
func (p *configParser) stdio(path string, m map[string]any, sc *ServerConfig) {
	if raw, ok := m["command"]; ok {
		if s, ok := p.str(member(path, "command"), raw); ok {
			if s == "" {
				p.fail(member(path, "command"), "empty")
			}
			sc.Command = s
		}
	} else {
		p.fail(member(path, "command"), "missing (or \"url\", for a Streamable HTTP server)")
	}
	if raw, ok := m["type"]; ok {
		if s, ok := p.str(member(path, "type"), raw); ok && s != "stdio" {
			if s == "http" || s == "streamable-http" {
				p.fail(member(path, "url"), "missing (\"type\" is %q)", s)
			} else {
				p.fail(member(path, "type"), "%q servers are not supported; want \"stdio\" with \"command\", or \"http\" with \"url\"", s)
			}
		}
	}
	if raw, ok := m["args"]; ok {
		arr, ok := raw.([]any)
		if !ok {
			p.fail(member(path, "args"), "want array, got %s", jsonType(raw))
		}
		for i, a := range arr {
			if s, ok := p.str(member(path, "args")+"["+strconv.Itoa(i)+"]", a); ok {
				sc.Args = append(sc.Args, s)
			}
		}
	}
	if raw, ok := m["env"]; ok {
		if env, ok := p.object(member(path, "env"), raw); ok {
			sc.Env = map[string]string{}
			for k, v := range env {
				if k == "" || bytes.ContainsAny([]byte(k), "=\x00") {
					p.fail(member(path, "env"), "invalid variable name %q", k)
					continue
				}
				if s, ok := p.str(member(member(path, "env"), k), v); ok {
					sc.Env[k] = s
				}
			}
		}
	}
	if raw, ok := m["cwd"]; ok {
		sc.Cwd, _ = p.str(member(path, "cwd"), raw)
	}
}

// CommandSpec returns the Command that runs the server.
func (sc *ServerConfig) CommandSpec() *Command {
	cmd := &Command{Path: sc.Command, Args: slices.Clone(sc.Args), Dir: sc.Cwd}
	keys := make([]string, 0, len(sc.Env))
	for k := range sc.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+sc.Env[k])
	}
	return cmd
}
